#!/bin/bash
# The arm64 agent, hilab-agent.aarch64, run by qemu-aarch64-static on this
# host: a static AArch64 executable; its facts match the native agent's,
# arch aside; its serve mode, driven over pipes by itest-serve exactly as
# the native agent is (HELLO, FACTS, RUN, FETCH of the spool, ACK, BYE),
# reports arch aarch64 and runs commands to their real results.
# Usage: agent_aarch64.sh ITEST_SERVE HILAB_AGENT [HILAB_AGENT_AARCH64]
set -u

. "$(dirname "$0")/lib.sh"

DRIVER=${1:?usage: agent_aarch64.sh ITEST_SERVE HILAB_AGENT [AARCH64_AGENT]}
AGENT=${2:?usage: agent_aarch64.sh ITEST_SERVE HILAB_AGENT [AARCH64_AGENT]}
A64=${3:-}

if [ -z "$A64" ] || [ ! -f "$A64" ]; then
	lab_skip "hilab-agent.aarch64 is not built here (it needs" \
	    "aarch64-linux-gnu-gcc from gcc-aarch64-linux-gnu at meson" \
	    "setup, and a build without sanitizers)"
fi
QEMU=$(command -v qemu-aarch64-static) ||
    lab_skip "qemu-aarch64-static missing (apt-get install qemu-user-static)"
for c in file readelf; do
	command -v "$c" >/dev/null ||
	    lab_skip "$c missing (apt-get install file binutils)"
done
TMP=$(mktemp -d /tmp/hilab-a64.XXXXXX) || lab_fail "mktemp"
trap 'rm -rf "$TMP"' EXIT

# Fails unless string $1 contains $2.
expect_in()
{
	case $1 in
	*"$2"*) ;;
	*) lab_fail "expected \"$2\" in: $1" ;;
	esac
}

# Prints the value of fact $2 in "key=value" lines $1.
fact()
{
	echo "$1" | sed -n "s/^$2=//p"
}

# Prints facts lines $1 without the ones that may differ between the
# builds: arch, and what comes from /proc/cpuinfo, which an emulator may
# make up for the arch it emulates.
facts_common()
{
	echo "$1" | grep -v -e '^arch=' -e '^cpu\.model[= ]' -e '^microcode[= ]'
}

echo "# the executable"
desc=$(file -b "$A64")
echo "file: $desc"
expect_in "$desc" "ARM aarch64"
expect_in "$desc" "statically linked"
hdr=$(readelf -h "$A64") || lab_fail "readelf -h $A64"
expect_in "$hdr" "Machine:                           AArch64"
expect_in "$hdr" "Class:                             ELF64"
readelf -l "$A64" | grep -q "Requesting program interpreter" &&
    lab_fail "hilab-agent.aarch64 asks for a dynamic loader"
expect_in "$(readelf -d "$A64")" "There is no dynamic section"
echo "ok: ELF64 AArch64, no interpreter, no dynamic section"

echo "# --version and facts"
nver=$("$AGENT" --version) || lab_fail "native --version"
VERSION=$(echo "$nver" | cut -d' ' -f2)
# The protocol version both agents must say, as common/proto.h defines it.
PROTO=$(sed -n 's/^#define PROTO_VERSION[[:space:]]*\([0-9][0-9]*\).*/\1/p' \
    "$HILAB_SRCDIR/common/proto.h")
NATIVE_ARCH=$(echo "$nver" | cut -d' ' -f3)
out=$("$QEMU" "$A64" --version) || lab_fail "aarch64 --version: $out"
[ "$out" = "hilab-agent $VERSION aarch64" ] ||
    lab_fail "aarch64 --version says \"$out\", native \"$nver\""
native=$("$AGENT" facts) || lab_fail "native facts"
facts=$("$QEMU" "$A64" facts) || lab_fail "aarch64 facts"
[ "$(fact "$facts" arch)" = aarch64 ] ||
    lab_fail "arch $(fact "$facts" arch), expected aarch64"
[ "$(fact "$facts" cpu.online)" = "$(getconf _NPROCESSORS_ONLN)" ] ||
    lab_fail "cpu.online $(fact "$facts" cpu.online)," \
    "getconf _NPROCESSORS_ONLN $(getconf _NPROCESSORS_ONLN)"
[ "$(fact "$facts" cpu.online_list)" = \
    "$(cat /sys/devices/system/cpu/online)" ] ||
    lab_fail "cpu.online_list $(fact "$facts" cpu.online_list)"
[ "$(fact "$facts" kernel.release)" = "$(uname -r)" ] ||
    lab_fail "kernel.release $(fact "$facts" kernel.release)"
[ "$(fact "$facts" boot_id)" = "$(cat /proc/sys/kernel/random/boot_id)" ] ||
    lab_fail "boot_id $(fact "$facts" boot_id)"
diff -u <(facts_common "$native") <(facts_common "$facts") ||
    lab_fail "the aarch64 agent's facts differ from the native agent's"
echo "ok: arch=aarch64 cpu.online=$(fact "$facts" cpu.online);" \
    "$(echo "$facts" | wc -l) facts, the same as the native agent's"

# Runs itest-serve against agent command "$@" (after DIR and the options),
# failing with what it printed unless it succeeds.
serve()
{
	local out

	out=$("$DRIVER" "$@" 2>"$TMP/serve.err") ||
	    lab_fail "itest-serve $*: $out $(cat "$TMP/serve.err")"
	echo "$out"
}

# Checks the output $1 of one exchange (facts aside): results seq 0..$2-1
# with exit $3 and output $4 (escaped as itest-serve prints it), all
# fetched again from the spool, acked, and the agent's exit 0.
check_exchange()
{
	local out=$1 n=$2 code=$3 text=$4 results fetched i want

	out=$(echo "$out" | grep -v '^fact ')
	results=$(echo "$out" | grep '^result ')
	fetched=$(echo "$out" | sed -n 's/^fetched /result /p')
	[ "$(echo "$results" | wc -l)" = "$n" ] ||
	    lab_fail "expected $n results: $out"
	for i in $(seq 0 $((n - 1))); do
		want="result seq=$i warmup=$([ "$i" -lt "$WARMUPS" ] &&
		    echo 1 || echo 0) exit=$code timed_out=0 output=$text"
		echo "$results" | grep -qxF "$want" ||
		    lab_fail "no \"$want\" in: $out"
	done
	[ "$fetched" = "$results" ] ||
	    lab_fail "FETCH replayed other results: $out"
	expect_in "$out" "done state=2 count=$n"
	expect_in "$out" "fetch done state=2 count=$n"
	expect_in "$out" "acked r1"
	expect_in "$out" "agent exit=0"
}

echo "# serve mode over pipes"
WARMUPS=1
word=hilab-a64-$$
out=$(serve -n 3 -w "$WARMUPS" "$TMP/native" "$AGENT" -- \
    /bin/echo "$word")
expect_in "$out" \
    "hello version=$PROTO agent_version=$VERSION arch=$NATIVE_ARCH"
check_exchange "$out" 4 0 "$word\\n"
echo "ok: the native agent ($NATIVE_ARCH) through the same driver"

out=$(serve -n 3 -w "$WARMUPS" "$TMP/a64" "$QEMU" "$A64" -- \
    /bin/echo "$word")
echo "$out" | grep -v '^fact '
expect_in "$out" "hello version=$PROTO agent_version=$VERSION "
hello=$(echo "$out" | grep '^hello ')
[ "${hello##* }" = "arch=aarch64" ] || lab_fail "HELLO: $hello"
check_exchange "$out" 4 0 "$word\\n"
diff -u <(facts_common "$facts" | sed 's/ (absent)$/ absent/') \
    <(echo "$out" | sed -n 's/^fact //p' | facts_common "$(cat)") ||
    lab_fail "FACTS over the protocol differ from \"facts\""
[ -e "$TMP/a64/spool/r1" ] && lab_fail "ACK left the spool of r1"
echo "ok: HELLO arch=aarch64; FACTS as printed by \"facts\"; /bin/echo" \
    "1 warmup + 3 iterations, exit 0, replayed from the spool, acked"

WARMUPS=0
out=$(serve "$TMP/a64" "$QEMU" "$A64" -- \
    /bin/sh -c 'echo out; echo err >&2; exit 3')
check_exchange "$out" 1 3 'out\nerr\n'
out=$(serve "$TMP/a64" "$QEMU" "$A64" -- /bin/true)
check_exchange "$out" 1 0 ''
echo "ok: exit 3 with stdout and stderr captured; /bin/true exit 0"
echo "agent-aarch64: all checks passed"
