#!/usr/bin/env bash
# Probes and monitors through hilabd on a lab host (sshd in a network
# namespace, which shares this machine's kernel, /proc and tracefs):
# vmstat, interrupts and softirqs deltas stored per iteration and shown by
# "hilab compare --monitors" (not without it); schedstat and perf-stat
# measured where the kernel has them, else refused with the reason; a
# standalone window (the catalog's watch, and watch with a workload); a
# function probe of select_task_rq_fair measured where tracefs offers
# function_graph or kprobe events, else refused with the reason; either
# way tracefs is left as it was found (mounted or not, its tracer and
# tracing_on).
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
eval "$(lab_host_up demo)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
daemon_lab_host demo
trap daemon_cleanup EXIT
T=$LAB_TMP

# job_file NAME OBSERVE: a short custom benchmark with OBSERVE's keys.
job_file() {
	cat >"$LAB_TMP/$1.yaml" <<YAML
name: $1
machines: [demo]
benchmarks:
  - name: forks
    command: [sh, -c, "for i in 1 2 3 4 5 6 7 8; do (true) & done; wait;
      echo work=1"]
    parser: keyvalue
    iterations: 3
    warmups: 0
    metrics: [{name: work, unit: ops, direction: higher}]
$2
YAML
	echo "$LAB_TMP/$1.yaml"
}

# run_job NAME OBSERVE: submits the job, waits, prints its id.
run_job() {
	local j

	j=$(submit "$(job_file "$1" "$2")")
	"$hilab" wait --timeout 120 "$j" >/dev/null 2>&1
	echo "$j"
}

state() { sql "SELECT state FROM jobs WHERE id = $1"; }
count() {
	sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run
	    WHERE r.job = $1 AND s.metric = '$2'"
}
least() {
	sql "SELECT MIN(value) FROM samples s JOIN runs r ON r.id = s.run
	    WHERE r.job = $1 AND s.metric = '$2'"
}
error_has() { sql "SELECT error FROM runs WHERE job = $1" | grep -qF "$2"; }
positive() { awk -v v="$1" 'BEGIN { exit !(v > 0) }'; }

# What tracefs is now: where it is mounted, and its tracer and switch.
tracefs_state() {
	local d

	d=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	echo "mount=$d"
	[ -n "$d" ] && echo "tracer=$(cat "$d/current_tracer")" \
	    "on=$(cat "$d/tracing_on")"
}

SUBMIT_ERR=$T/submit.err
echo "1..21"
daemon_start

# vmstat, interrupts and softirqs: every host has them.
j=$(run_job mon "    monitors: [vmstat, interrupts, softirqs]")
check "monitors job $j done" test "$(state "$j")" = done
check "a pgfault delta per iteration" test "$(count "$j" mon.vmstat.pgfault)" = 3
check "the forks faulted pages" positive "$(least "$j" mon.vmstat.pgfault)"
check "an interrupt total per iteration" test "$(count "$j" mon.interrupts.total)" = 3
check "softirqs per kind (TIMER)" test "$(count "$j" mon.softirqs.TIMER)" = 3
cmp=$("$hilab" compare --job "$j" --monitors 2>&1)
check "compare --monitors shows the pgfault deltas" grep -q 'mon.vmstat.pgfault' <<<"$cmp"
check "... under the benchmark's own table" test "$(grep -n 'work\|mon.vmstat.pgfault' <<<"$cmp" | head -1 | grep -c work)" = 1
check "compare without --monitors leaves them out" test "$("$hilab" compare --job "$j" 2>&1 | grep -c 'mon\.')" = 0
"$hilab" report "$j" >"$T/report.txt" 2>&1
sed -n '/^Inside the kernel/,/^$/p' "$T/report.txt" | head -12 | sed 's/^/# /'
check "hilab report has them" grep -q 'mon.interrupts.total' "$T/report.txt"
check "... and a section per kernel with each figure, n and CV" grep -qE '^    forks .*, mon\.vmstat\.pgfault: [0-9.e+]+ events \(n=3, CV [0-9.]+%\)$' "$T/report.txt"

# schedstat: measured where /proc/schedstat is, else refused saying why.
j=$(run_job sched "    monitors: [schedstat]")
if [ -r /proc/schedstat ]; then
	check "schedstat job $j done" test "$(state "$j")" = done
	check "context switches and wakeups per iteration" test "$(count "$j" mon.schedstat.context_switches)$(count "$j" mon.schedstat.wakeups)" = 33
else
	check "schedstat job $j failed here" test "$(state "$j")" = failed
	check "... naming /proc/schedstat" error_has "$j" 'monitor "schedstat": "/proc/schedstat"'
fi

# perf-stat: the kernel's counters, or the reason there are none.
j=$(run_job perf "    monitors: [perf-stat]")
if [ "$(state "$j")" = done ]; then
	check "perf-stat: cpu migrations counted per iteration" test "$(count "$j" mon.perf-stat.cpu_migrations)" = 3
else
	check "perf-stat refused with the reason" error_has "$j" 'monitor "perf-stat": perf_event_open'
fi

# A standalone window: the catalog's watch (nothing runs in it), and
# watch with a workload in it, stopped at the window's end.
cat >"$T/watch.yaml" <<YAML
name: watch
machines: [demo]
monitors: [vmstat]
benchmarks:
  - name: watch
    params: {seconds: 1}
    iterations: 2
  - name: watch-forks
    command: [hilab-agent, probe, watch, --seconds, 1, --, sh, -c,
      "while :; do (true); done"]
    parser: keyvalue
    iterations: 2
    metrics: [{name: watched_s, unit: s, direction: higher}]
YAML
j=$(submit "$T/watch.yaml")
"$hilab" wait --timeout 120 "$j" >/dev/null 2>&1
check "watch job $j done" test "$(state "$j")" = done
check "each window lasted its second" test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $j AND s.metric = 'watched_s' AND s.value >= 1 AND s.value < 3")" = 4
check "the workload forked inside the window" positive "$(sql "SELECT MIN(s.value) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $j AND r.benchmark = 'watch-forks' AND s.metric = 'mon.vmstat.pgfault'")"
check "... and was stopped at its end" test "$(pgrep -fc 'while :; do \(true\)')" = 0

# The function probe, and tracefs as found afterwards.
before=$(tracefs_state)
j=$(run_job probe "    probes: [{function: select_task_rq_fair}]")
d=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -z "$d" ] && mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null &&
    d=/sys/kernel/tracing && unmount=1
if [ -n "$d" ] && grep -qw function_graph "$d/available_tracers" 2>/dev/null &&
    grep -qx select_task_rq_fair "$d/available_filter_functions" 2>/dev/null; then
	check "probe job $j done" test "$(state "$j")" = done
	check "calls and ns per call per iteration" test "$(count "$j" probe.select_task_rq_fair.calls)$(count "$j" probe.select_task_rq_fair.ns_per_call)" = 33
	check "the calibration beside them" test "$(count "$j" probe.calibration.overhead_ns)" = 3
	# compare notes each kernel's calibration, the median of its samples.
	med=$(sql "SELECT s.value FROM samples s JOIN runs r ON r.id = s.run
	    WHERE r.job = $j AND s.metric = 'probe.calibration.empty_ns' ORDER BY s.value LIMIT 1 OFFSET 1")
	"$hilab" compare --job "$j" >"$T/probe-compare.txt" 2>&1
	check "compare notes the empty call's median ($(printf %.0f "$med") ns)" \
	    grep -q "a call of an empty function reads $(printf %.0f "$med") ns" "$T/probe-compare.txt"
else
	check "probe job $j failed on this kernel" test "$(state "$j")" = failed
	check "... saying why" error_has "$j" 'hilab-agent: probe: '
	check "... and no probe sample" test "$(count "$j" probe.select_task_rq_fair.calls)" = 0
fi
[ -n "${unmount:-}" ] && umount "$d"
check "tracefs as found ($before)" test "$(tracefs_state)" = "$before"

daemon_stop TERM
[ "$failed" = 0 ] || sed "s/^/# submit: /" "$SUBMIT_ERR"
daemon_log_on_failure
exit $((failed > 0))
