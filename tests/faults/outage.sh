#!/usr/bin/env bash
# Silent hosts and outages: the host's link pulled (packets dropped, no
# reset) while it runs an iteration.  TCP keepalives (1 s in the machine
# file here) notice the silent connection within seconds; hilabd then
# reconnects, backing off, for the machine's reconnect_for (60 s here),
# and once the host answers collects the rest of the run from the agent's
# spool.  An outage of 20 s and one of 40 s each end with every iteration
# stored exactly once.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
eval "$(lab_host_up away)"
. "$HILAB_SRCDIR/tests/faults/lib.sh"
printf '  keepalive: 1s\n  reconnect_for: 60s\n  connect_timeout: 3s\n' \
    >>"$HILAB_MACHINES/demo.yaml"
# The same host as "brief", which waits only 5 s for it.
sed -e 's/^name: demo/name: brief/' -e 's/reconnect_for: 60s/reconnect_for: 5s/' \
    "$HILAB_MACHINES/demo.yaml" >"$HILAB_MACHINES/brief.yaml"

# job_file NAME [MACHINE]: 16 one-second iterations on MACHINE ("demo").
job_file() {
	took_job "$1" "${2:-demo}" 16 0 "sleep 1; echo took 1 s"
}
# lost_at JOB: when the job's run first said its connection dropped (ms).
lost_at() { sql "SELECT MIN(time) FROM events WHERE job = $1 AND level = 'warn'"; }
is_lost() { [ -n "$(lost_at "$1")" ]; }

# outage NAME SECONDS: a job whose host's link is down that long after
# its third result; checks that nothing was lost.
outage() {
	local j t0 seen

	j=$(submit "$(job_file "$1")")
	wait_for 60 has_results "$j" 3
	t0=$(date +%s%3N)
	lab_host_link away down
	wait_for "$2" is_lost "$j"
	seen=$(lost_at "$j")
	sleep $(( $2 - ($(date +%s%3N) - t0) / 1000 ))
	lab_host_link away up
	"$hilab" wait --timeout 180 "$j" >/dev/null
	echo "# $1: link down $2 s; the silence noticed $(( ${seen:-0} - t0 )) ms after the cut: $(sql "SELECT message FROM events WHERE job = $j AND level = 'warn'")"
	echo "# $1: $(sql "SELECT message FROM events WHERE job = $j AND message LIKE '%answers again%'")"
	check "$1: the silent connection is noticed within 8 s" \
	    test $(( ${seen:-999999999} - t0 )) -lt 8000
	check "$1: the host answered again and the run was collected" \
	    test "$(sql "SELECT COUNT(*) FROM events WHERE job = $j AND message LIKE 'host \"demo\" answers again after % s (% connection%): the run is collected from its spool'")" = 1
	check "$1: the job ends done, its one run done" \
	    test "$(sql "SELECT state FROM jobs WHERE id = $j")/$(sql "SELECT GROUP_CONCAT(state) FROM runs WHERE job = $j")" = done/done
	check "$1: every iteration stored exactly once, seq 0..15" \
	    test "$(sql "SELECT COUNT(*) || '/' || COUNT(DISTINCT seq) || '/' || MAX(seq) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $j")" = 16/16/15
}

echo "1..14"
daemon_start
outage short 20
outage long 40

# Away for longer than "brief" waits: the run fails saying so, what it
# stored is kept, and once the host is back the spool left there is
# freed before the next run.
j=$(submit "$(job_file gone brief)")
wait_for 60 has_results "$j" 3
lab_host_link away down
"$hilab" wait --timeout 60 "$j" >/dev/null
lab_host_link away up
echo "# gone: $(sql "SELECT error FROM runs WHERE job = $j")"
check "away past reconnect_for: the run fails, saying how long it waited" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $j AND state = 'failed' AND error LIKE 'host \"brief\" did not answer again in % s (% connections, reconnect_for 5 s): %'")" = 1
check "the results stored before are kept" has_results "$j" 3
check "its spool stays on the host meanwhile" test -n "$(ls "$AGENT_DIR_REMOTE/spool" 2>/dev/null)"
k=$(submit "$(job_file back brief)")
"$hilab" wait --timeout 120 "$k" >/dev/null
check "back, the next job runs there" test "$(sql "SELECT state FROM jobs WHERE id = $k")" = done
check "and the failed run's spool was freed first, saying so" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE job = $j AND message LIKE 'spool of agent run \"j$j-r%\" freed on host \"brief\": the run had ended failed%'")" = 1
check "no spool left on the host" test -z "$(ls "$AGENT_DIR_REMOTE/spool" 2>/dev/null)"
daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
