#!/usr/bin/env bash
# The function probe and the monitors on a copy of the lab's 32-vCPU VM
# under both Debian kernels, in alternating rounds: select_task_rq_fair
# timed while hackbench runs by function_graph and, in a second hackbench
# of the same rounds, by kprobe events (calls and ns per call per iteration
# and kernel, each method's empty-probe calibration beside them, the two
# agreeing once it is subtracted); schedstat, vmstat, interrupt and perf
# deltas in the same iterations; the compare tables state the method and
# its overhead; tracefs is as it was found before the probed runs, and
# after runners SIGKILLed while each method recorded (their guardians put
# it back); the guest's function_graph and raw kprobe captures feed the
# parsers' unit test.
set -u
. "$HILAB_SRCDIR/tests/lib/labvm.sh"
labvm_init labobs
labvm_copy vm32 observe-vm32 127.0.0.17

# What tracefs is in the guest, as keyvalue samples: mounted or not (it
# is mounted for the look and unmounted again if it was not), tracing_on,
# the tracer, kprobe events, the raw option, the graph depth, the filter,
# and kernel.sched_schedstats, which the schedstat monitor switches on.
state='m=$(grep -c " tracefs " /proc/mounts); echo tracefs_mounts=$m;
  d=$(grep " tracefs " /proc/mounts | head -1 | cut -d" " -f2);
  if [ -z "$d" ]; then d=/sys/kernel/tracing; mount -t tracefs nodev $d; fi;
  echo tracing_on=$(cat $d/tracing_on);
  case $(cat $d/current_tracer) in
  nop) echo tracer_nop=1 ;; *) echo tracer_nop=0 ;; esac;
  echo kprobes=$(grep -c . $d/kprobe_events);
  echo raw=$(cat $d/options/raw);
  echo graph_depth=$(cat $d/max_graph_depth);
  echo filters=$(grep -vc "^#" $d/set_ftrace_filter);
  echo schedstats=$(cat /proc/sys/kernel/sched_schedstats);
  [ $m != 0 ] || umount $d'
metrics='[{name: tracefs_mounts, unit: flag, direction: higher},
      {name: tracing_on, unit: flag, direction: higher},
      {name: tracer_nop, unit: flag, direction: higher},
      {name: kprobes, unit: events, direction: lower},
      {name: raw, unit: flag, direction: lower},
      {name: graph_depth, unit: calls, direction: lower},
      {name: filters, unit: functions, direction: lower},
      {name: schedstats, unit: flag, direction: lower}]'
cat >"$T/observe.yaml" <<YAML
name: observe-vm
machines: [$VM]
kernels:
  - {name: base, image: $HILAB_LAB_KERNEL_BASE}
  - {name: patched, image: $HILAB_LAB_KERNEL_PATCHED}
rounds: 2
order: alternate
benchmarks:
  - name: before
    command: [sh, -c, '$state']
    parser: keyvalue
    iterations: 1
    warmups: 0
    metrics: $metrics
  - name: hackbench
    params: {groups: 2, loops: 20}
    iterations: 3
    warmups: 1
    probes: [{function: select_task_rq_fair, method: function_graph}]
    monitors: [schedstat, vmstat, interrupts, perf-stat]
  - name: hackbench-kprobe
    command: [hackbench, --process, -g, 2, -l, 20]
    parser: hackbench
    metrics: [{name: time, unit: s, direction: lower}]
    iterations: 3
    warmups: 1
    probes: [{function: select_task_rq_fair, method: kprobe}]
  - name: after
    command: [sh, -c, '$state']
    parser: keyvalue
    iterations: 1
    warmups: 0
    metrics: $metrics
  - name: graph-capture
    command: [sh, -c, 'mount -t tracefs nodev /sys/kernel/tracing; cd
      /sys/kernel/tracing; echo schedule > set_ftrace_filter; echo schedule >
      set_graph_function; echo 1 > max_graph_depth; echo function_graph >
      current_tracer; sleep 1; echo 0 > tracing_on; head -100 trace; echo
      nop > current_tracer; echo > set_ftrace_filter; echo >
      set_graph_function; echo 0 > max_graph_depth; echo 1 > tracing_on;
      umount /sys/kernel/tracing; echo captured=1']
    parser: keyvalue
    iterations: 1
    warmups: 0
    metrics: [{name: captured, unit: flag, direction: higher}]
  - name: raw-capture
    command: [sh, -c, 'mount -t tracefs nodev /sys/kernel/tracing; cd
      /sys/kernel/tracing; f=__x64_sys_getppid; echo "p:hilabcap/e \$f" >>
      kprobe_events; echo "r:hilabcap/r \$f" >> kprobe_events; echo 1 >
      options/raw; echo 1 > events/hilabcap/enable; for i in 1 2 3 4 5; do
      sh -c :; done; echo 0 > tracing_on; echo "raw| ids \$(cat
      events/hilabcap/e/id) \$(cat events/hilabcap/r/id)"; head -60 trace |
      sed "s/^/raw| /";
      echo 0 > events/hilabcap/enable; echo "-:hilabcap/e" >> kprobe_events;
      echo "-:hilabcap/r" >> kprobe_events; echo 0 > options/raw; echo 1 >
      tracing_on; umount /sys/kernel/tracing; echo captured=1']
    parser: keyvalue
    iterations: 1
    warmups: 0
    metrics: [{name: captured, unit: flag, direction: higher}]
YAML

# per_kernel BENCHMARK METRIC SQL: SQL of the metric's samples per kernel,
# "base=...,patched=...".
per_kernel() {
	sql "SELECT group_concat(k || '=' || v, ',') FROM (SELECT k.name k,
	    $3 v FROM samples s JOIN runs r ON r.id = s.run JOIN kernels k
	    ON k.id = r.kernel WHERE r.job = $j AND r.benchmark = '$1' AND
	    s.metric = '$2' GROUP BY k.name ORDER BY k.name)"
}
positive() { awk -v v="$1" 'BEGIN { exit !(v > 0) }'; }

# med BENCHMARK METRIC KERNEL: the median of the metric's samples.
med() {
	sql "SELECT s.value FROM samples s JOIN runs r ON r.id = s.run JOIN
	    kernels k ON k.id = r.kernel WHERE r.job = $j AND r.benchmark =
	    '$1' AND s.metric = '$2' AND k.name = '$3' ORDER BY s.value" |
	    awk '{ v[NR] = $1 } END { if (NR == 0) print "none";
	    else if (NR % 2) print v[(NR + 1) / 2];
	    else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# agree A B: A and B within 20% of their mean.
agree() {
	awk -v a="$1" -v b="$2" 'BEGIN { m = (a + b) / 2; d = a - b;
	    if (d < 0) d = -d; exit !(m > 0 && d <= 0.20 * m) }'
}
# apart A B: how far apart A and B are, in percent of their mean.
apart() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d;
    printf "%.1f", 200 * d / (a + b) }'; }

echo "1..24"
SUBMIT_ERR=$T/submit.err
daemon_start
t0=$(date +%s)
j=$(submit "$T/observe.yaml")
"$hilab" wait --timeout 2400 "$j" >/dev/null
check "job $j done" test "$(sql "SELECT state FROM jobs WHERE id = $j")" = done ||
    sed 's/^/# submit: /' "$SUBMIT_ERR"
echo "# job $j took $(($(date +%s) - t0)) s"
fn=probe.select_task_rq_fair
six="base=6,patched=6"
for b in hackbench hackbench-kprobe; do
	echo "# $b per kernel, mean over iterations: calls $(per_kernel $b $fn.calls 'ROUND(AVG(s.value))'), ns per call $(per_kernel $b $fn.ns_per_call 'ROUND(AVG(s.value))'), p50 $(per_kernel $b $fn.p50_ns 'ROUND(AVG(s.value))'), empty $(per_kernel $b probe.calibration.empty_ns 'ROUND(AVG(s.value))'), overhead $(per_kernel $b probe.calibration.overhead_ns 'ROUND(AVG(s.value))')"
done
echo "# wakeups $(per_kernel hackbench mon.schedstat.wakeups 'ROUND(AVG(s.value))'), migrations $(per_kernel hackbench mon.perf-stat.cpu_migrations 'ROUND(AVG(s.value))'), context switches $(per_kernel hackbench mon.schedstat.context_switches 'ROUND(AVG(s.value))')"
check "function_graph: calls per iteration, 6 per kernel" test "$(per_kernel hackbench $fn.calls 'COUNT(*)')" = "$six"
check "select_task_rq_fair was called" positive "$(sql "SELECT MIN(value) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $j AND s.metric = '$fn.calls'")"
check "function_graph: ns per call per iteration" test "$(per_kernel hackbench $fn.ns_per_call 'COUNT(*)')" = "$six"
check "function_graph: the calibration in every iteration" test "$(per_kernel hackbench probe.calibration.overhead_ns 'COUNT(*)')|$(per_kernel hackbench probe.calibration.empty_ns 'COUNT(*)')" = "$six|$six"
check "kprobe: calls and ns per call per iteration" test "$(per_kernel hackbench-kprobe $fn.calls 'COUNT(*)')|$(per_kernel hackbench-kprobe $fn.ns_per_call 'COUNT(*)')" = "$six|$six"
check "kprobe: the calibration in every iteration" test "$(per_kernel hackbench-kprobe probe.calibration.empty_ns 'COUNT(*)')" = "$six"
check "each method recorded as the one that measured" test "$(per_kernel hackbench probe.method.function_graph 'COUNT(*)')|$(per_kernel hackbench-kprobe probe.method.kprobe 'COUNT(*)')" = "$six|$six"
check "context switches, wakeups and migrations per iteration" test "$(per_kernel hackbench mon.schedstat.context_switches 'COUNT(*)')|$(per_kernel hackbench mon.schedstat.wakeups 'COUNT(*)')|$(per_kernel hackbench mon.perf-stat.cpu_migrations 'COUNT(*)')" = "$six|$six|$six"
check "page faults and interrupts per iteration" test "$(per_kernel hackbench mon.vmstat.pgfault 'COUNT(*)')|$(per_kernel hackbench mon.interrupts.total 'COUNT(*)')" = "$six|$six"
"$hilab" compare --job "$j" --benchmark hackbench --monitors >"$T/compare.txt" 2>&1
sed 's/^/# /' "$T/compare.txt" | head -120
check "compare: ns per call, base and patched" grep -q "$fn.ns_per_call" "$T/compare.txt"
check "... with the method and the calibration stated" grep -q "probe: function_graph" "$T/compare.txt"
check "... and the monitors' deltas" grep -q "mon.schedstat.wakeups" "$T/compare.txt"
"$hilab" compare --job "$j" --benchmark hackbench-kprobe --metric $fn.net_ns >"$T/compare-kprobe.txt" 2>&1
sed 's/^/# /' "$T/compare-kprobe.txt"
check "compare states the kprobe method on its table" grep -q "probe: kprobe" "$T/compare-kprobe.txt"
"$hilab" compare --job "$j" --metric $fn.net_p50_ns >"$T/compare-both.txt" 2>&1
check "both benchmarks' tables, each with its own method" test "$(grep -c '^note: probe: function_graph;' "$T/compare-both.txt")|$(grep -c '^note: probe: kprobe;' "$T/compare-both.txt")" = "1|1"
same=$(sql "SELECT COUNT(*) FROM (SELECT r.kernel, r.round, s.metric, s.value FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $j AND r.benchmark = 'before' EXCEPT SELECT r.kernel, r.round, s.metric, s.value FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $j AND r.benchmark = 'after')")
check "tracefs as found after the probed runs (mounts, tracer, tracing_on, kprobe events, raw, depth, filter) and sched_schedstats" test "$same" = 0
check "tracefs was checked in each kernel and round" test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $j AND r.benchmark = 'after'")" = 32
sql "SELECT output FROM run_results o JOIN runs r ON r.id = o.run WHERE r.job = $j AND r.benchmark = 'graph-capture' LIMIT 1" >"$T/graph.txt"
sql "SELECT output FROM run_results o JOIN runs r ON r.id = o.run WHERE r.job = $j AND r.benchmark = 'raw-capture' LIMIT 1" |
    sed -n 's/^raw| //p' >"$T/raw.txt"
HILAB_GRAPH_CAPTURE=$T/graph.txt HILAB_RAW_CAPTURE=$T/raw.txt "$HILAB_BUILDDIR/tests/unit/agent/test-observe" >"$T/observe.log" 2>&1
check "the function_graph parser on the guest's capture" grep -q '^\[       OK \] test_graph' "$T/observe.log"
check "the raw event parser on the guest's kprobe capture" grep -q '^\[       OK \] test_raw' "$T/observe.log"
# The two methods on the same calls: each one's median per-call time less
# its own calibration's median (net_p50_ns), the median over iterations,
# per kernel.  The means (net_ns) are printed beside: under TCG a vCPU
# descheduled inside a call (32 vCPUs take turns on one host thread) adds
# milliseconds to that call, so the means follow the host's load.  The
# medians came 2.4-15.5% apart over four runs (kprobes' the higher in 7
# of 8), so the check allows 20%: each method's fixed cost (its empty
# call: ~6.6 us for function_graph, ~3.8 us for kprobes under TCG) is
# measured on getppid's handler, not on the function itself.
for k in base patched; do
	g=$(med hackbench $fn.net_p50_ns $k) p=$(med hackbench-kprobe $fn.net_p50_ns $k)
	echo "# $k: net ns per call, function_graph / kprobe: median $g / $p, mean $(med hackbench $fn.net_ns $k) / $(med hackbench-kprobe $fn.net_ns $k); empty call $(med hackbench probe.calibration.empty_p50_ns $k) / $(med hackbench-kprobe probe.calibration.empty_p50_ns $k)"
	check "$k: the methods agree within 20% (net median ns per call $g v $p: $(apart "$g" "$p")% apart)" agree "$g" "$p"
done

# The guardians: a benchmark that SIGKILLs its own runner (its parent)
# while the probe records and schedstat is switched on, once for each
# method; then tracefs and sched_schedstats read again, once no guardian
# is left, against what the first job's base kernel showed at its start.
cat >"$T/killed.yaml" <<YAML
name: observe-killed
machines: [$VM]
kernels:
  - {name: base, image: $HILAB_LAB_KERNEL_BASE}
benchmarks:
  - name: killed-graph
    command: [sh, -c, 'kill -9 \$PPID']
    parser: keyvalue
    iterations: 1
    warmups: 0
    metrics: [{name: never, unit: flag, direction: higher}]
    probes: [{function: select_task_rq_fair, method: function_graph}]
    monitors: [schedstat]
  - name: killed-kprobe
    command: [sh, -c, 'kill -9 \$PPID']
    parser: keyvalue
    iterations: 1
    warmups: 0
    metrics: [{name: never, unit: flag, direction: higher}]
    probes: [{function: select_task_rq_fair, method: kprobe}]
    monitors: [schedstat]
  - name: after
    command: [sh, -c, 'while grep -qx hilab-guardian /proc/[0-9]*/comm; do
      sleep 0.1; done; $state']
    parser: keyvalue
    iterations: 1
    warmups: 0
    metrics: $metrics
YAML
k=$(submit "$T/killed.yaml")
"$hilab" wait --timeout 900 "$k" >/dev/null 2>&1
runs() { sql "SELECT group_concat(benchmark || '=' || state, ',') FROM (SELECT benchmark, state FROM runs WHERE job = $k ORDER BY id)"; }
echo "# job $k runs: $(runs); errors: $(sql "SELECT group_concat(error, ' | ') FROM runs WHERE job = $k AND error IS NOT NULL" | head -c 600)"
check "both killed runs failed, the state read after them" test "$(runs)" = "killed-graph=failed,killed-kprobe=failed,after=done"
same=$(sql "SELECT COUNT(*) FROM (SELECT s.metric, s.value FROM samples s JOIN runs r ON r.id = s.run JOIN kernels kk ON kk.id = r.kernel WHERE r.job = $j AND r.benchmark = 'before' AND kk.name = 'base' AND r.round = 0 EXCEPT SELECT s.metric, s.value FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $k AND r.benchmark = 'after')")
check "the guardians put tracefs and sched_schedstats back after SIGKILL" test "$same" = 0
check "... all 8 of them read" test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $k AND r.benchmark = 'after'")" = 8
exit $((failed > 0))
