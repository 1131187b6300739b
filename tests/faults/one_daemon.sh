#!/usr/bin/env bash
# One hilabd per database: a second hilabd on the database of a running
# one is refused at once, naming the holder's pid and host, and touches
# nothing: the first keeps its socket and its job, no event or run
# changes.  A SIGKILLed holder leaves no stale lock.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
eval "$(lab_host_up one)"
. "$HILAB_SRCDIR/tests/faults/lib.sh"

job=$(demo_job one <<YAML
benchmarks:
  - name: hackbench
    params: {groups: 1, loops: 2000}
    iterations: 6
YAML
)
running() { [ -n "$(sql "SELECT 1 FROM runs WHERE job = $a AND state = 'running'")" ]; }

echo "1..8"
daemon_start
first=$daemon_pid
a=$(submit "$job")
wait_for 60 running
t0=$(date +%s%3N)
"$hilabd" --socket "$LAB_TMP/second.sock" 2>"$LAB_TMP/second.err"
rc=$?
echo "# second hilabd refused in $(($(date +%s%3N) - t0)) ms: $(cat "$LAB_TMP/second.err")"
check "a second hilabd on the database exits 1" test $rc = 1
check "its error names the holder's pid and host and the lock file" \
    grep -qF "hilabd: database \"$HILAB_DB\" is in use by hilabd pid $first on host $(hostname) since " "$LAB_TMP/second.err"
check "and says what to do" grep -q "(lock file \"$HILAB_DB.lock\"); one hilabd per database: stop that one first" "$LAB_TMP/second.err"
check "it made no socket" test ! -e "$LAB_TMP/second.sock"
check "it said nothing else" test "$(wc -l <"$LAB_TMP/second.err")" = 1
check "the first still answers on its socket" bash -c "'$hilab' status $a >/dev/null"
"$hilab" wait --timeout 120 "$a" >/dev/null
check "the first's job ends done, its run never resumed nor failed" \
    test "$(sql "SELECT state FROM jobs WHERE id = $a")/$(sql "SELECT COUNT(*) FROM events WHERE job = $a AND (level = 'error' OR message LIKE '%resum%' OR message LIKE '%interrupted%')")" = done/0
daemon_stop KILL
daemon_start
check "after a SIGKILL of the holder, hilabd starts again" \
    kill -0 "$daemon_pid"
daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
