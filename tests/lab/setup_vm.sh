#!/usr/bin/env bash
# A job's machine setup on a libvirt VM of the lab (a copy of vm4 under a
# name and loopback address of its own: 4 vCPUs, 2 threads per core): SMT
# turned off through the guest kernel's smt/control (its facts then count
# 2 CPUs online) and THP set, both put back before the VM goes down; the
# cpufreq governor the VM lacks is reported absent, never faked.
set -u
. "$HILAB_SRCDIR/tests/lib/labvm.sh"
labvm_init setupvm
export HILAB_CATALOG=$HILAB_SRCDIR/benchmarks
labvm_copy vm4 setup-vm4 127.0.0.42

cat >"$T/setup.yaml" <<YAML
name: setup-vm
machines: [$VM]
kernels: [{name: base, image: $HILAB_LAB_KERNEL_BASE}]
setup: {smt: "off", thp: never, governor: performance}
benchmarks:
  - name: hackbench
    params: {groups: 2, loops: 50}
    iterations: 2
    warmups: 0
YAML

# events PATTERN: how many events of the job match the LIKE pattern.
events() {
	sql "SELECT COUNT(*) FROM events WHERE job = $j AND message LIKE '$1'"
}

# fact KEY: the fact KEY of the job's run.
fact() {
	sql "SELECT json_extract(facts, '\$.\"$1\"') FROM runs WHERE job = $j"
}

echo "1..8"
daemon_start
j=$(submit "$T/setup.yaml")
"$hilab" wait --timeout 600 "$j" >/dev/null
check "job $j done" test "$(sql "SELECT state FROM jobs WHERE id = $j")" = done
check "SMT turned off in the guest" test "$(events 'machine setup: smt off (was on)')" = 1
check "its run counts 2 CPUs online of 4, SMT inactive" test "$(fact cpu.online)|$(fact smt.active)|$(fact setup.smt)" = "2|0|off"
check "THP set in the guest" test "$(fact setup.thp)|$(fact thp.enabled)" = "never|never"
check "the VM's missing cpufreq reported absent" test "$(events 'machine setup: governor absent: no cpufreq policies%')" = 1
# The job ends with its last run; its setup goes back right after.
restored() { test "$(events "machine setup restored: $1")" = 1; }
check "SMT put back before the VM went down" until_true 600 restored "smt on"
check "THP too" until_true 100 restored "thp %"
check "hackbench measured meanwhile" test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $j AND s.metric = 'time'")" = 2
daemon_stop TERM
exit $((failed > 0))
