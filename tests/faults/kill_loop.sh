#!/usr/bin/env bash
# hilabd killed at random moments: a job of 2 rounds x 30 half-second
# iterations while hilabd is SIGKILLed at least 20 times and restarted
# each time.  The runs go on on the host meanwhile; every iteration is
# stored exactly once, the agent's spools are collected and removed, and
# the job ends done.  Then the moment between committing a run and the
# agent receiving it: a run left "running" under an agent run id the host
# never got is done again, not failed.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
eval "$(lab_host_up kills)"
. "$HILAB_SRCDIR/tests/faults/lib.sh"

# job_file NAME ITERATIONS: two rounds of a half-second command.
job_file() {
	took_job "$1" demo "$2" 1 "sleep 0.5; echo took 0.5 s" "rounds: 2"
}

echo "1..9"
a=$(submit "$(job_file kills 30)")
kills=0
t0=$(date +%s%3N)
daemon_start
while [ "$(job_state "$a")" != done ] && [ $kills -lt 40 ]; do
	sleep "$(awk -v r=$RANDOM 'BEGIN { printf "%.2f", 0.4 + r % 1200 / 1000 }')"
	[ "$(job_state "$a")" = done ] && break
	daemon_stop KILL
	kills=$((kills + 1))
	daemon_start
done
"$hilab" wait --timeout 120 "$a" >/dev/null
t1=$(date +%s%3N)
iter_ms=$(sql "SELECT CAST(SUM(rr.wall_ns) / 1000000 AS INTEGER) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $a")
echo "# $kills kills: job took $((t1 - t0)) ms for $iter_ms ms of iterations"
[ $kills -gt 0 ] && echo "# time lost per kill: $(( (t1 - t0 - iter_ms) / kills )) ms (start, ssh and resume included)"
check "at least 20 kills while the job ran" test $kills -ge 20
check "the job ends done" test "$(job_state "$a")" = done
check "its 2 runs done, none done again" \
    test "$(sql "SELECT COUNT(*), SUM(state = 'done'), COUNT(retried_as) FROM runs WHERE job = $a")" = "2|2|0"
check "every iteration stored exactly once: 31 results per run, seq 0..30" \
    test "$(sql "SELECT GROUP_CONCAT(n || '/' || d || '/' || lo || '/' || hi, ' ') FROM (SELECT COUNT(*) n, COUNT(DISTINCT seq) d, MIN(seq) lo, MAX(seq) hi FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $a GROUP BY r.id)")" = "31/31/0/30 31/31/0/30"
check "30 samples per run" \
    test "$(sql "SELECT GROUP_CONCAT(n, ' ') FROM (SELECT COUNT(*) n FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $a GROUP BY r.id)")" = "30 30"
check "the agent's spools collected and removed" \
    test -z "$(ls "$AGENT_DIR_REMOTE/spool" 2>/dev/null)"

# Killed between committing a run and sending it: what that leaves is
# made by hand while hilabd is down (its machine in maintenance until
# the run is planned, so no worker takes it first).
"$hilab" machines set demo maintenance --reason "window test" >/dev/null
b=$(submit "$(job_file window 2)")
planned() { [ "$(sql "SELECT COUNT(*) FROM runs WHERE job = $b")" = 2 ]; }
wait_for 30 planned
daemon_stop TERM
first=$(sql "SELECT MIN(id) FROM runs WHERE job = $b")
sql "UPDATE runs SET state = 'running', agent_run_id = 'j$b-r$first-0badf00d', started_at = 1 WHERE id = $first"
"$hilab" machines set demo good >/dev/null
daemon_start
"$hilab" wait --timeout 120 "$b" >/dev/null
check "a run the host never received is done again" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE id = $first AND retried_as IS NOT NULL AND error = 'interrupted before the host received it; run again as run ' || retried_as")" = 1
check "and its job ends done, 2 runs measured" \
    test "$(job_state "$b")/$(sql "SELECT COUNT(*) FROM runs WHERE job = $b AND state = 'done'")" = done/2
check "nothing calls the run unknown on the host" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE job = $b AND message LIKE '%is unknown%'")" = 0
daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
