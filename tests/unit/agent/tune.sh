#!/usr/bin/env bash
# The agent's machine setup (hilab-agent tune) on a tree standing for
# sysfs (--root), as a unit test: every control set and put back when
# stdin ends, the order (smt first), absent controls and why, bad values,
# a SIGKILL of the holder (its guardian restores), a saved file a dead
# holder left (restored on the same boot, dropped after a reboot), and one
# holder at a time.  The real controls are tested through hilabd
# (e2e-machine-setup).
# Usage: tune.sh HILAB-AGENT   (TAP)
set -u
agent=$1
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
R=$T/root
D=$T/dir
CPU=$R/sys/devices/system/cpu
THP=$R/sys/kernel/mm/transparent_hugepage/enabled
n=0
failed=0
check() {	# check DESCRIPTION COMMAND...
	local d=$1

	shift
	n=$((n + 1))
	if "$@"; then echo "ok $n - $d"; else echo "not ok $n - $d"; failed=$((failed + 1)); fi
}

# A host of two CPUs with every control, as its files read at boot.
make_root() {
	local c p i s

	rm -rf "$R" "$D"
	mkdir -p "$(dirname "$THP")" "$CPU/smt" "$CPU/cpufreq" \
	    "$R/proc/sys/kernel/random"
	echo "always [madvise] never" >"$THP"
	echo on >"$CPU/smt/control"
	echo 1 >"$CPU/cpufreq/boost"
	echo boot-1 >"$R/proc/sys/kernel/random/boot_id"
	for p in 0 1; do
		mkdir -p "$CPU/cpufreq/policy$p"
		echo schedutil >"$CPU/cpufreq/policy$p/scaling_governor"
		echo "performance schedutil" >"$CPU/cpufreq/policy$p/scaling_available_governors"
	done
	for c in 0 1; do
		i=0
		for s in POLL C1 C1E C6; do
			mkdir -p "$CPU/cpu$c/cpuidle/state$i"
			echo "$s" >"$CPU/cpu$c/cpuidle/state$i/name"
			echo 0 >"$CPU/cpu$c/cpuidle/state$i/disable"
			i=$((i + 1))
		done
	done
}

# Every control file's value (THP's selected word), one line.
state() {
	local f

	printf '%s ' "$(sed 's/.*\[\(.*\)\].*/\1/' "$THP")"
	for f in "$CPU/smt/control" "$CPU/cpufreq/boost" \
	    "$CPU"/cpufreq/policy*/scaling_governor \
	    "$CPU"/cpu*/cpuidle/state*/disable; do
		printf '%s ' "$(cat "$f")"
	done
}

# tune ARGS...: the holder with stdin from a fifo ($T/in), output in $T/out.
tune_start() {
	rm -f "$T/in" "$T/out"
	mkfifo "$T/in"
	"$agent" --dir "$D" tune --root "$R" "$@" <"$T/in" >"$T/out" 2>"$T/err" &
	holder=$!
	exec 7>"$T/in"
}

# Waits until the holder printed a line matching $1.
said() {
	local i

	for i in $(seq 1 100); do
		grep -q "$1" "$T/out" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

echo "1..18"
make_root
before=$(state)
tune_start governor=performance boost=off smt=off thp=never cstates=C1
said '^ready$'
held=$(state)
check "every control set while held" test "$held" = "never off 0 performance performance 0 0 1 1 0 0 1 1 "
check "smt first, each with its old value and files" test "$(sed -n 1,5p "$T/out" | tr '\n' '|')" = "set smt off on 1|set governor performance schedutil 2|set boost off 1 1|set thp never madvise 1|set cstates C1 0 4|"
echo status >&7
check "a held setup answers status" said '^held$'
exec 7>&-
wait "$holder"
check "all back when stdin ends" test "$(state)" = "$before"
check "in reverse order, then done" test "$(sed -n '/^held$/,$p' "$T/out" | tr '\n' '|')" = "held|restored cstates 0|restored thp madvise|restored boost 1|restored governor schedutil|restored smt on|done|"
check "the saved file is gone" test ! -e "$D/tune/saved"

rm -rf "$CPU/cpufreq" "$CPU"/cpu*/cpuidle
echo notsupported >"$CPU/smt/control"
tune_start governor=performance boost=off smt=off cstates=C1
exec 7>&-
wait "$holder"
check "absent controls say why" test "$(grep -c '^absent ' "$T/out")" = 4
check "smt: the control's own word" grep -qx 'absent smt smt control is "notsupported"' "$T/out"

make_root
echo "powersave" >"$CPU/cpufreq/policy1/scaling_available_governors"
tune_start governor=performance cstates=C3
exec 7>&-
wait "$holder"
check "a governor a policy does not offer is absent" grep -q '^absent governor governor not offered by ".*policy1/scaling_available_governors"$' "$T/out"
check "so is a C-state of no such name" grep -qx 'absent cstates no cpuidle state "C3"' "$T/out"
"$agent" --dir "$D" tune --root "$R" thp=sometimes smt=on </dev/null >"$T/out" 2>&1
check "a bad value is refused before anything is written" test "$?|$(cat "$T/out")|$(state)" = "1|error control \"thp\": bad value \"sometimes\"|$(state)"

make_root
tune_start thp=never smt=off
said '^ready$'
kill -KILL "$holder"
wait "$holder" 2>/dev/null
for i in $(seq 1 50); do [ "$(state)" = "$before" ] && break; sleep 0.1; done
check "a SIGKILL of the holder: its guardian puts everything back" test "$(state)" = "$before"
check "and says so" grep -q "hilab-agent: tune: pid $holder died; cleaned up" "$T/err"

# A saved file a dead holder and guardian left: this boot's is restored.
mkdir -p "$D/tune"
echo never >"$THP"
printf 'boot boot-1\nthp\tmadvise\t%s\n' "$THP" >"$D/tune/saved"
tune_start smt=off
said '^ready$'
check "a dead holder's saved file of this boot is restored first" test "$(head -1 "$T/out")|$(cat "$THP")" = "restored thp madvise|madvise"
exec 7>&-
wait "$holder"
echo never >"$THP"
printf 'boot boot-0\nthp\tmadvise\t%s\n' "$THP" >"$D/tune/saved"
"$agent" --dir "$D" tune --root "$R" smt=on </dev/null >"$T/out" 2>&1
check "one of an earlier boot is dropped" test "$(cat "$THP")|$(grep -c restored "$T/out")" = "never|0"

# One holder at a time: the second starts once the first is done.
make_root
tune_start thp=never
said '^ready$'
"$agent" --dir "$D" tune --root "$R" smt=off </dev/null >"$T/out2" 2>&1 7>&- &
second=$!
sleep 0.5
check "a second holder waits for the first" test ! -s "$T/out2"
exec 7>&-
wait "$holder"
wait "$second"
check "and then applies its own" test "$(head -1 "$T/out2")" = "set smt off on 1"
check "the host is as it was" test "$(state)" = "$before"
exit $((failed > 0))
