#!/usr/bin/env bash
# hilabd end to end on a real lab host (sshd in a network namespace), the
# real agent, hackbench and SQLite: bad job files, submit while the daemon
# is down, samples in the database, SIGKILL of hilabd mid-job, cancel.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
eval "$(lab_host_up demo)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
SUBMIT_ERR=$LAB_TMP/submit.err
daemon_lab_host demo

trap daemon_cleanup EXIT

# job_file NAME GROUPS LOOPS ITERATIONS: a hackbench job on "demo".
job_file() {
	cat >"$LAB_TMP/$1.yaml" <<YAML
name: $1
machines: [demo]
benchmarks:
  - name: hackbench
    params: {groups: $2, loops: $3}
    iterations: $4
    warmups: 1
YAML
	echo "$LAB_TMP/$1.yaml"
}

# wait_results JOB N: until the job has stored N results (30 s at most).
wait_results() {
	for _ in $(seq 1 300); do
		[ "$(sql "SELECT COUNT(*) FROM run_results rr JOIN runs r
		    ON r.id = rr.run WHERE r.job = $1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

echo "1..25"

# A bad job file: every error with file:line:col, nothing queued.
cat >"$LAB_TMP/bad.yaml" <<YAML
name: bad
machines: [demo, nosuchhost]
benchmarks:
  - name: hackbench
    params: {groups: [1, 2]}
    iteratons: 3
YAML
"$hilab" submit "$LAB_TMP/bad.yaml" 2>"$LAB_TMP/bad.err"
check "bad job file exits 2" test $? = 2
check "errors name file:line:col" grep -q "bad.yaml:6:5: unknown key \"iteratons\"" "$LAB_TMP/bad.err"
check "unknown machine reported" grep -q "bad.yaml:2:.*nosuchhost" "$LAB_TMP/bad.err"
check "nothing queued" test "$(sql 'SELECT COUNT(*) FROM jobs' 2>/dev/null || echo 0)" = 0

# Submitted while hilabd is down: durable, queued, runs once it starts.
a=$(submit "$(job_file a "[1, 2]" 100 3)")
check "submit with hilabd down queues job $a" test "$(sql "SELECT state FROM jobs WHERE id = $a")" = queued
check "submit says hilabd is not answering" grep -q "not answering" "$LAB_TMP/submit.err"
daemon_start
"$hilab" wait --timeout 120 "$a" >/dev/null
check "job $a done once hilabd started" test $? = 0
check "6 samples of hackbench time" test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $a AND s.metric = 'time' AND s.value > 0")" = 6
check "8 results (warmups kept apart)" test "$(sql "SELECT COUNT(*), SUM(warmup) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $a")" = "8|2"
check "facts record the running kernel" test "$(sql "SELECT DISTINCT json_extract(facts, '\$.\"kernel.release\"') FROM runs WHERE job = $a")" = "$(uname -r)"
"$hilab" compare --job "$a" >"$LAB_TMP/compare.out"
check "compare prints a row per group count" grep -q "^2-groups" "$LAB_TMP/compare.out"

# SIGKILL of hilabd mid-job: after a restart every result is stored once.
b=$(submit "$(job_file b 2 800 8)")
wait_results "$b" 2
daemon_stop KILL
stored=$(sql "SELECT COUNT(*) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $b")
echo "# killed hilabd with $stored of 9 results stored"
daemon_start
"$hilab" wait --timeout 180 "$b" >/dev/null
check "job $b done after SIGKILL and restart" test $? = 0
check "all 9 results stored, seq 0..8 once each" test "$(sql "SELECT COUNT(*), COUNT(DISTINCT seq), MIN(seq), MAX(seq) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $b")" = "9|9|0|8"
check "8 samples" test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $b")" = 8
check "agent spool acknowledged and removed" test -z "$(ls "$AGENT_DIR_REMOTE/spool" 2>/dev/null)"

# Cancel mid-job: the job ends cancelled and the machine is free.
c=$(submit "$(job_file c 2 1500 30)")
wait_results "$c" 2
"$hilab" cancel "$c" >/dev/null
"$hilab" wait --timeout 60 "$c" >/dev/null
check "job $c cancelled" test "$(sql "SELECT state FROM jobs WHERE id = $c")" = cancelled
for _ in $(seq 1 300); do
	[ -z "$(sql "SELECT lease_owner FROM machines WHERE name = 'demo'")" ] && break
	sleep 0.1
done
check "machine lease released after cancel" test -z "$(sql "SELECT lease_owner FROM machines WHERE name = 'demo'")"
check "no benchmark left running on the host" test -z "$(ip netns pids "$NETNS" | xargs -r ps -o comm= -p | grep hackbench)"
check "results spooled before the cancel are kept" test "$(sql "SELECT COUNT(*) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $c")" -ge 2

# Packaged tools from the catalog, and a benchmark that hangs: killed at
# its timeout, the run failed with what it printed, the others measured.
cat >"$LAB_TMP/tools.yaml" <<YAML
name: tools
machines: [demo]
benchmarks:
  - name: sysbench-cpu
    params: {threads: 1, time: 1}
    iterations: 2
    warmups: 0
  - name: stress-ng-cpu
    params: {workers: 1, time: 1}
    iterations: 2
  - name: hang
    command: [sh, -c, "echo started; sleep 60"]
    parser: keyvalue
    metrics: [{name: x, unit: s, direction: lower}]
    iterations: 1
    timeout: 1s
YAML
t0=$(date +%s)
t=$(submit "$LAB_TMP/tools.yaml")
"$hilab" wait --timeout 120 "$t" >/dev/null
check "job $t with a hanging benchmark ends failed" test "$(sql "SELECT state FROM jobs WHERE id = $t")" = failed
check "it ended long before the hang would have" test $(($(date +%s) - t0)) -lt 50
check "sysbench through hilab: 2 events/s samples" test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $t AND s.metric = 'events_per_second' AND s.value > 0")" = 2
check "stress-ng through hilab: 2 bogo ops/s samples" test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $t AND s.metric = 'cpu_bogo_ops_per_s' AND s.value > 0")" = 2
check "the hang is recorded timed out with its output" test "$(sql "SELECT rr.timed_out || '|' || CAST(rr.output AS TEXT) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $t AND r.benchmark = 'hang'")" = "1|started"
check "the hang's run failed naming the timeout" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $t AND benchmark = 'hang' AND state = 'failed' AND error LIKE '%timed out%'")" = 1

daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
