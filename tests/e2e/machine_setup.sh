#!/usr/bin/env bash
# A job's machine setup through hilabd on a lab host (sshd in a network
# namespace, which shares this machine's sysfs): transparent hugepages are
# a real control here, set to "never" for the job's runs and put back
# after them; the controls this host lacks (cpufreq governor and boost,
# SMT control, cpuidle states) are reported absent, never faked; all of it
# is in the runs' facts.  Then a SIGKILL of hilabd in the middle of a run:
# the agent on the host puts THP back at once; a hilabd started again does
# the interrupted run again (its iterations since lacked the setup), with
# the setup applied again, and puts it back when the job is cancelled.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
THP=/sys/kernel/mm/transparent_hugepage/enabled
[ -w "$THP" ] || skip_machine "no writable $THP on this host"
# One test at a time changes this machine's THP (other build trees too).
exec 8>/run/hilab-thp.lock
flock -w 600 8 || lab_fail "/run/hilab-thp.lock: held for 10 minutes"
thp() { sed 's/.*\[\(.*\)\].*/\1/' "$THP"; }
ORIG=$(thp)
[ "$ORIG" != never ] || skip_machine "THP is \"never\" already here"
eval "$(lab_host_up demo)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
SUBMIT_ERR=$LAB_TMP/submit.err
daemon_lab_host demo

# Puts THP back whatever happened, then the usual teardown.
setup_cleanup() {
	local rc=$?

	daemon_stop KILL
	[ "$(thp)" = "$ORIG" ] || echo "$ORIG" >"$THP"
	(exit $rc)
	lab_teardown
}
trap setup_cleanup EXIT

# job_file NAME SECONDS: a job whose run reads THP SECONDS after it starts.
job_file() {
	cat >"$LAB_TMP/$1.yaml" <<YAML
name: $1
machines: [demo]
setup: {governor: performance, boost: "off", smt: "off", thp: never,
        cstates: C1}
benchmarks:
  - name: thp-seen
    command: [sh, -c, "sleep \"\$1\"; case \$(cat $THP) in
      *'[never]'*) echo thp_never=1 ;; *) echo thp_never=0 ;; esac", sh, "{wait}"]
    params: {wait: $2}
    parser: keyvalue
    iterations: 2
    metrics: [{name: thp_never, unit: "1", direction: higher}]
YAML
	echo "$LAB_TMP/$1.yaml"
}

# events JOB PATTERN: how many events of the job match the LIKE pattern.
events() {
	sql "SELECT COUNT(*) FROM events WHERE job = $1 AND message LIKE '$2'"
}

# fact JOB KEY: the fact KEY of the job's first run.
fact() {
	sql "SELECT json_extract(facts, '\$.\"$2\"') FROM runs WHERE job = $1
	    ORDER BY id LIMIT 1"
}

thp_is() { [ "$(thp)" = "$1" ]; }
holder_gone() {
	! ip netns pids "$NETNS" | xargs -r ps -o args= -p | grep -q ' tune '
}

echo "1..18"
daemon_start
j=$(submit "$(job_file setup 0)")
"$hilab" wait --timeout 120 "$j" >/dev/null
check "job $j done" test "$(sql "SELECT state FROM jobs WHERE id = $j")" = done
check "its runs saw THP \"never\"" test "$(sql "SELECT group_concat(value) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $j")" = "1.0,1.0"
# The job ends with its last run; its setup goes back right after.
check "THP back to \"$ORIG\" after the job" until_true 100 thp_is "$ORIG"
check "the setup is an event: thp never (was $ORIG)" test "$(events "$j" "machine setup: thp never (was $ORIG)")" = 1
restored() { test "$(events "$j" "machine setup restored: thp $ORIG")" = 1; }
check "and its restore" until_true 100 restored
for c in governor boost smt cstates; do
	check "$c reported absent here" test "$(events "$j" "machine setup: $c absent: %")" = 1
done
check "the run's facts: setup.thp never, thp.enabled never" test "$(fact "$j" setup.thp)|$(fact "$j" thp.enabled)" = "never|never"
check "the run's facts: governor absent, and why" bash -c "[[ '$(fact "$j" setup.governor)' == 'absent: no cpufreq'* ]]"

# SIGKILL of hilabd while a run sleeps with the setup applied.
k=$(submit "$(job_file killed 20)")
check "THP \"never\" while job $k runs" until_true 300 thp_is never
# Killed once the agent has the run (a kill before it is another case).
at_agent() { test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $k AND agent_run_id IS NOT NULL")" -ge 1; }
check "the agent has the run" until_true 300 at_agent
daemon_stop KILL
killed=$(date +%s%N)
check "THP back to \"$ORIG\" within 5 s of a SIGKILL of hilabd" until_true 50 thp_is "$ORIG"
echo "# THP back $((($(date +%s%N) - killed) / 1000000)) ms after the SIGKILL"
check "no holder left on the host" until_true 50 holder_gone
daemon_start
check "hilabd started again applies it to the run done again" until_true 400 thp_is never
check "the interrupted run is done again, saying why" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $k AND state = 'failed' AND retried_as IS NOT NULL AND error LIKE 'interrupted: its machine setup was put back when the controller stopped; run again as run %'")" = 1
"$hilab" cancel "$k" >/dev/null
"$hilab" wait --timeout 60 "$k" >/dev/null
check "and puts it back once the job is cancelled" until_true 100 thp_is "$ORIG"
sql "SELECT '# ' || run || ' ' || level || ': ' || message FROM events WHERE job = $k ORDER BY id"
daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
