#!/usr/bin/env bash
# The cpuset-hotplug probe under hilabd on a 32-vCPU VM booted into two
# kernels with rt_group_sched=0: ~1000 cpu cgroups, 10 partition switches
# and 4 offline/online cycles of the last CPU per kernel, every sample in
# SQLite, and the table hilab compare prints in the change style: one row
# per operation, one column per kernel, medians and the change of the
# last kernel.  A second benchmark in the same boot shows every CPU came
# back online.  The VM is a copy of the lab's vm32 under its own name and
# loopback address, so other lab tests may run beside it.
set -u
. "$HILAB_SRCDIR/tests/lib/labvm.sh"
labvm_init seed0
CPUS=32
# The lab's vm32 under another name, address and known_hosts line.
labvm_copy vm32 seed0vm 127.0.0.13

cat >"$T/seed0.yaml" <<YAML
name: seed0-hotplug
description: sched domain rebuilds with 1000 cpu cgroups
machines: [$VM]
kernels:
  - {name: base, image: $HILAB_LAB_KERNEL_BASE}
  - {name: patched, image: $HILAB_LAB_KERNEL_PATCHED}
rounds: 1
order: fixed
benchmarks:
  - name: cpuset-hotplug
    params: {cgroups: 1000, switches: 10, hotplug: 4, cpu: last}
    timeout: 300s
  - name: cpus-online
    command: [sh, -c, "echo cpus_online=\$(grep -c ^processor /proc/cpuinfo)"]
    parser: keyvalue
    metrics: [{name: cpus_online, unit: cpus, direction: higher}]
    iterations: 1
YAML

echo "1..14"
daemon_start
t0=$(date +%s)
job=$(submit "$T/seed0.yaml")
"$hilab" wait --timeout 600 "$job" >/dev/null
check "job done" test $? = 0
echo "# job $job took $(($(date +%s) - t0)) s"
sql "SELECT '# ' || k.name || ' ' || r.benchmark || ': ' || ((r.finished_at - r.started_at) / 1000) || ' s' FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $job ORDER BY r.round, r.position"

hp="r.job = $job AND r.benchmark = 'cpuset-hotplug'"
check "a done cpuset-hotplug run per kernel" test \
    "$(sql "SELECT group_concat(k.name || '=' || r.state, ' ') FROM runs r JOIN kernels k ON k.id = r.kernel WHERE $hp ORDER BY r.position")" = "base=done patched=done"
check "each kernel booted its own release" test \
    "$(sql "SELECT group_concat(k.name || '=' || json_extract(r.facts, '\$.\"kernel.release\"'), ' ') FROM runs r JOIN kernels k ON k.id = r.kernel WHERE $hp ORDER BY r.position")" = "base=$HILAB_LAB_RELEASE_BASE patched=$HILAB_LAB_RELEASE_PATCHED"
check "booted with rt_group_sched=0 on $CPUS online CPUs" test \
    "$(sql "SELECT COUNT(*) FROM runs r WHERE $hp AND json_extract(r.facts, '\$.\"kernel.cmdline\"') LIKE '%rt_group_sched=0%' AND json_extract(r.facts, '\$.\"cpu.online\"') = '$CPUS'")" = 2
counts=$(sql "SELECT group_concat(x, ' ') FROM (SELECT k.name || ':' || s.metric || '=' || COUNT(*) x FROM samples s JOIN runs r ON r.id = s.run JOIN kernels k ON k.id = r.kernel WHERE $hp AND s.value > 0 GROUP BY k.name, s.metric ORDER BY r.position, s.metric)")
echo "# samples > 0: $counts"
check "10 switches, 4 offline, 4 online samples > 0 per kernel" test "$counts" = \
    "base:cpu_offline_ms=4 base:cpu_online_ms=4 base:partition_switch_ms=10 patched:cpu_offline_ms=4 patched:cpu_online_ms=4 patched:partition_switch_ms=10"
check "no sample <= 0" test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE $hp AND s.value <= 0")" = 0

# The table: operations as rows, kernels as columns, the change last.
"$hilab" compare --job "$job" --benchmark cpuset-hotplug --style change \
    >"$T/change.txt"
echo "# hilab compare --job $job --benchmark cpuset-hotplug --style change:"
sed 's/^/#   /' "$T/change.txt"
num='[0-9]+\.?[0-9]*'
check "header: operation, base (ms), patched (ms)" \
    grep -Eq '^operation +base \(ms\) +patched \(ms\)$' "$T/change.txt"
check "three operation rows in the job's order with a change column" bash -c \
    "grep -E '^(change partition root|cpu offline|cpu online) ' '$T/change.txt' | cut -c1-21 | sed 's/ *\$//' | paste -sd, | grep -qx 'change partition root,cpu offline,cpu online' && test \$(grep -Ec '^(change partition root|cpu offline|cpu online) +$num +$num +[-+]?[0-9]+%[*~]?\$' '$T/change.txt') = 3"

# Each cell is the median of the stored samples; the change is theirs.
medians() {	# medians METRIC -> "base patched change"
	local k
	for k in base patched; do
		sql "SELECT s.value FROM samples s JOIN runs r ON r.id = s.run JOIN kernels k ON k.id = r.kernel WHERE $hp AND k.name = '$k' AND s.metric = '$1' ORDER BY s.value" |
		    awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
	done | paste -sd' ' | awk '{ printf "%s %s %.0f\n", $1, $2, 100 * ($2 - $1) / $1 }'
}
cells_match() {	# cells_match LABEL METRIC
	local row want
	row=$(grep -E "^$1 " "$T/change.txt" | sed "s/^$1 *//; s/[%*~]//g")
	want=$(medians "$2")
	echo "# $1: table $row, medians of the samples $want"
	awk -v a="$row" -v b="$want" 'BEGIN { split(a, x, " "); split(b, y, " ");
	    for (i = 1; i <= 2; i++) if (x[i] - y[i] > 0.006 * y[i] + 0.005 || y[i] - x[i] > 0.006 * y[i] + 0.005) exit 1;
	    d = x[3] - y[3]; exit (d > 1 || d < -1) }'
}
cells_all() {
	cells_match 'change partition root' partition_switch_ms &&
	    cells_match 'cpu offline' cpu_offline_ms &&
	    cells_match 'cpu online' cpu_online_ms
}
check "cells are the medians of the samples, the change theirs" cells_all
"$hilab" compare --job "$job" --benchmark cpuset-hotplug --style change \
    --rows metric >"$T/rows-metric.txt"
check "--rows metric prints the same table" cmp -s "$T/change.txt" "$T/rows-metric.txt"
"$hilab" compare --job "$job" --benchmark cpuset-hotplug --style change \
    --rows params >"$T/rows-params.txt"
check "--rows params prints a table per metric" test "$(grep -c '^Case ' "$T/rows-params.txt")" = 3
"$hilab" report "$job" --style change >"$T/report.txt"
check "hilab report shows the operation table" bash -c \
    "grep -Fxq \"\$(sed -n 2p '$T/change.txt')\" '$T/report.txt' && grep -Fxq \"\$(sed -n 1p '$T/change.txt')\" '$T/report.txt'"

# The run after the probe, in the same boot: every CPU back online.
after="r.job = $job AND r.benchmark = 'cpus-online'"
check "after the probe, facts: all $CPUS CPUs online under each kernel" test \
    "$(sql "SELECT group_concat(k.name || '=' || json_extract(r.facts, '\$.\"cpu.online\"'), ' ') FROM runs r JOIN kernels k ON k.id = r.kernel WHERE $after ORDER BY r.position")" = "base=$CPUS patched=$CPUS"
check "after the probe, /proc/cpuinfo: $CPUS CPUs under each kernel" test \
    "$(sql "SELECT group_concat(s.value, ' ') FROM samples s JOIN runs r ON r.id = s.run WHERE $after AND s.metric = 'cpus_online' ORDER BY r.position")" = "$CPUS.0 $CPUS.0"
exit $((failed > 0))
