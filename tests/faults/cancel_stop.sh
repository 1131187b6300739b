#!/usr/bin/env bash
# Cancel and SIGTERM take effect within seconds while the host is in the
# middle of an 8-second iteration: after a restart of hilabd (the run
# resumed from the agent's spool), after a reconnect (the ssh session
# cut), and on a plain run.  A cancel stops the benchmark on the host,
# stores what was spooled and frees the machine; SIGTERM leaves the run
# going on the host and the next start collects it, every iteration
# stored once.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
eval "$(lab_host_up stops)"
. "$HILAB_SRCDIR/tests/faults/lib.sh"

# job_file NAME: five 8-second iterations on "demo".
job_file() {
	took_job "$1" demo 5 0 "sleep 8; echo took 8 s"
}
# cancelled_within JOB: cancels the job; prints the ms until it ended.
cancelled_within() {
	local t0

	t0=$(date +%s%3N)
	"$hilab" cancel "$1" >/dev/null
	"$hilab" wait --timeout 60 "$1" >/dev/null
	echo $(($(date +%s%3N) - t0))
}
sleeps_on_host() { ip netns pids "$NETNS" | xargs -r ps -o args= -p | grep -c '^sleep 8'; }
lease() { sql "SELECT COALESCE(lease_owner, '') FROM machines WHERE name = 'demo'"; }

# cancel_checks JOB WHEN: cancels JOB and checks that it ended within 4 s,
# that its benchmark stopped on the host and that its first result stayed.
cancel_checks() {
	local ms

	ms=$(cancelled_within "$1")
	echo "# cancel after $2: job cancelled in $ms ms"
	check "after $2, cancel ends the job within 4 s" test "$ms" -lt 4000
	check "the benchmark stopped on the host" test "$(sleeps_on_host)" = 0
	check "the result spooled before the cancel is stored" has_results "$1" 1
}

echo "1..12"
daemon_start

# After a restart: the resumed run's stream sees the cancel.
a=$(submit "$(job_file restart)")
wait_for 30 has_results "$a" 1
daemon_stop KILL
daemon_start
sleep 1
cancel_checks "$a" "a restart"
wait_for 5 test -z "$(lease)"
check "the machine's lease is freed" test -z "$(lease)"

# After a reconnect: the ssh session cut mid-iteration.
b=$(submit "$(job_file reconnect)")
wait_for 30 has_results "$b" 1
lab_host_cut stops
sleep 3
cancel_checks "$b" "a reconnect"

# SIGTERM mid-iteration: hilabd ends at once, the run goes on on the
# host and the next start collects all of it.
c=$(submit "$(job_file sigterm)")
wait_for 30 has_results "$c" 1
t0=$(date +%s%3N)
daemon_stop TERM
ms=$(($(date +%s%3N) - t0))
echo "# SIGTERM mid-iteration: hilabd ended in $ms ms"
check "SIGTERM ends hilabd within 3 s" test "$ms" -lt 3000
check "the run is left running, saying so" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE job = $c AND message LIKE 'hilabd stops: the run goes on on the host%'")/$(sql "SELECT state FROM runs WHERE job = $c")" = 1/running
check "the benchmark goes on on the host" test "$(sleeps_on_host)" = 1
daemon_start
"$hilab" wait --timeout 120 "$c" >/dev/null
check "the next start collects it: the job done" test "$(job_state "$c")" = done
check "every iteration stored once: seq 0..4" \
    test "$(sql "SELECT COUNT(*) || '/' || COUNT(DISTINCT seq) || '/' || MAX(seq) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $c")" = 5/5/4
daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
