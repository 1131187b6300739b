#!/bin/bash
# The agent over ssh against a real OpenSSH sshd in a network namespace:
# upload by content hash, facts, hackbench runs, a connection cut in the
# middle of a run and the results fetched afterwards, host key refusals.
# Usage: agent.sh ITEST_AGENT_BINARY HILAB_AGENT_BINARY
set -u

. "$(dirname "$0")/lib.sh"

DRIVER=${1:?usage: agent.sh ITEST_AGENT HILAB_AGENT}
AGENT=${2:?usage: agent.sh ITEST_AGENT HILAB_AGENT}
AGENT_DIR=$(cd "$(dirname "$AGENT")" && pwd)
HACKBENCH=$(command -v hackbench) ||
    lab_skip "hackbench missing (apt-get install rt-tests)"
lab_init
eval "$(lab_host_up a1)"
export LAB_TMP

# Runs the agent driver against a1: drv [MACHINE_OPTIONS --] COMMAND ARGS.
drv()
{
	local opts=()

	case " $* " in
	*" -- "*)
		while [ "$1" != -- ]; do
			opts+=("$1")
			shift
		done
		shift
		;;
	esac
	"$DRIVER" -n a1 -h "$HOST" -p "$PORT" -l "$LOGIN" -i "$KEY" \
	    -k "$KNOWN_HOSTS" -d "$AGENT_DIR_REMOTE" "${opts[@]}" \
	    "$AGENT_DIR" "$@"
}

# Fails unless string $1 contains $2.
expect_in()
{
	case $1 in
	*"$2"*) ;;
	*) lab_fail "expected \"$2\" in: $1" ;;
	esac
}

# Fails unless the result lines of $1 are seq 0..$2-1, once each, in order.
expect_seqs()
{
	local want got

	want=$(seq 0 $(($2 - 1)) | sed 's/^/seq=/')
	got=$(echo "$1" | sed -n 's/^result \(seq=[0-9]*\) .*/\1/p')
	[ "$got" = "$want" ] ||
	    lab_fail "results are not seq 0..$(($2 - 1)) in order: $got"
}

echo "# upload by content hash"
out=$(drv connect) || lab_fail "connect: $out"
[ "$out" = "uploaded=1 arch=$(uname -m)" ] || lab_fail "first connect: $out"
hash=$(sha256sum "$AGENT_DIR/hilab-agent" | cut -c1-16)
[ -x "$AGENT_DIR_REMOTE/hilab-agent-$hash" ] ||
    lab_fail "no hilab-agent-$hash in $(ls "$AGENT_DIR_REMOTE")"
cmp "$AGENT_DIR/hilab-agent" "$AGENT_DIR_REMOTE/hilab-agent-$hash" ||
    lab_fail "uploaded agent differs"
before=$(stat -c %Y.%i "$AGENT_DIR_REMOTE/hilab-agent-$hash")
out=$(drv connect) || lab_fail "connect: $out"
[ "$out" = "uploaded=0 arch=$(uname -m)" ] || lab_fail "second connect: $out"
[ "$(stat -c %Y.%i "$AGENT_DIR_REMOTE/hilab-agent-$hash")" = "$before" ] ||
    lab_fail "agent was replaced on the second connect"
echo "ok: uploaded as hilab-agent-$hash on the first connect only"

echo "# facts"
facts=$(drv facts) || lab_fail "facts"
fact()
{
	echo "$facts" | sed -n "s/^$1=//p"
}
[ "$(fact kernel.release)" = "$(uname -r)" ] ||
    lab_fail "kernel.release $(fact kernel.release), uname -r $(uname -r)"
[ "$(fact boot_id)" = "$(cat /proc/sys/kernel/random/boot_id)" ] ||
    lab_fail "boot_id $(fact boot_id)"
[ "$(fact cpu.online)" = "$(getconf _NPROCESSORS_ONLN)" ] ||
    lab_fail "cpu.online $(fact cpu.online)"
[ "$(fact arch)" = "$(uname -m)" ] || lab_fail "arch $(fact arch)"
[ "$(fact mem.total_kb)" = "$(awk '/^MemTotal:/ { print $2 }' \
    /proc/meminfo)" ] || lab_fail "mem.total_kb $(fact mem.total_kb)"
echo "ok: $(echo "$facts" | wc -l) facts; kernel.release boot_id" \
    "cpu.online arch mem.total_kb match this host"

echo "# hackbench through the agent"
out=$(drv run -e Time: hb1 5 1 "$HACKBENCH" -g 2 -l 100) ||
    lab_fail "hackbench run: $out"
echo "$out"
expect_seqs "$out" 6
expect_in "$out" "result seq=0 warmup=1 exit=0"
expect_in "$out" "result seq=5 warmup=0 exit=0"
expect_in "$out" "done state=2 results=6"
out=$(drv ack hb1) || lab_fail "ack: $out"
echo "ok: 1 warmup + 5 iterations, each exit 0 with Time:"

echo "# connection cut in the middle of a run"
cut="bash -c '. $(dirname "$0")/lib.sh; LAB_TMP=$LAB_TMP lab_host_cut a1'"
out=$(drv run -e Time: -x "$cut" hb2 8 1 "$HACKBENCH" -g 2 -l 200)
rc=$?
echo "$out"
[ $rc = 4 ] || lab_fail "run with a cut: rc $rc"
expect_in "$out" "cut after the first result"
expect_in "$out" 'dropped after'
expect_in "$out" 'host "a1"'
out=$(drv fetch hb2 0 1) || lab_fail "fetch: $out"
echo "$out"
expect_seqs "$out" 9
expect_in "$out" "done state=2 results=9"
[ -d "$AGENT_DIR_REMOTE/spool/hb2" ] || lab_fail "no spool for hb2"
out=$(drv reuse hb2) || lab_fail "reuse: $out"
expect_in "$out" 'refused: host "a1": agent: run "hb2": already exists'
expect_in "$out" "facts after it: "
out=$(drv ack hb2) || lab_fail "ack: $out"
[ -e "$AGENT_DIR_REMOTE/spool/hb2" ] && lab_fail "ack left the spool"
out=$(drv fetch hb2 0 0) || lab_fail "fetch after ack: $out"
[ "$out" = "done state=4 results=0" ] || lab_fail "after ack: $out"
echo "ok: all 9 results fetched once, in order, after the cut; ack" \
    "removed the spool"

echo "# per-iteration overhead"
drv overhead 200 || lab_fail "overhead"

echo "# host keys"
: >"$LAB_TMP/kh_empty"
out=$(drv -k "$LAB_TMP/kh_empty" -d "$HOST_DIR/remote2" -- connect)
[ $? = 3 ] || lab_fail "unknown host accepted: $out"
expect_in "$out" "unknown host key for $HOST"
[ -e "$HOST_DIR/remote2" ] && lab_fail "uploaded to an unknown host"
out=$(drv -T -k "$LAB_TMP/kh_empty" -d "$HOST_DIR/remote2" -- connect) ||
    lab_fail "trust on first use: $out"
[ "$out" = "uploaded=1 arch=$(uname -m)" ] || lab_fail "tofu: $out"
grep -q "^$HOST " "$LAB_TMP/kh_empty" || lab_fail "tofu: key not written"
lab_host_rekey a1
out=$(drv -T -d "$HOST_DIR/remote3" -- connect)
[ $? = 3 ] || lab_fail "changed host key accepted: $out"
expect_in "$out" "host \"a1\": host key for $HOST has changed"
[ -e "$HOST_DIR/remote3" ] && lab_fail "uploaded to a host with a new key"
echo "ok: $out"
echo "agent: all checks passed"
