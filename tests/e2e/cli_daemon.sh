#!/usr/bin/env bash
# hilabd's own command line and its reload, on a real lab host (sshd in a
# network namespace) with the real agent and hackbench: --help, --version
# and a usage error; -n that writes nothing (no new database, no machine
# recorded) and names a bad file's line and column; log lines with their
# time and level, and what -v adds; SIGHUP adding a machine that then
# takes a job, whose story hilab logs tells (planned, the benchmark found
# installed, the run started and done with its mean, the job done), a
# broken machine file kept out while hilabd runs on, a machine changed
# (its worker restarts and runs a job), hilab wait's line per iteration
# with the time left, and a machine removed in mid-job (its run ends, its
# queued run fails, the job's end says so).
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || lab_skip "sqlite3 missing (apt-get install sqlite3)"
LAB_TAP=1 lab_init
eval "$(lab_host_up demo)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
T=$LAB_TMP
SUBMIT_ERR=$T/submit.err
# The machine file waits aside: hilabd starts with an empty inventory.
daemon_lab_host demo
mv "$HILAB_MACHINES/demo.yaml" "$T/demo.yaml"

trap daemon_cleanup EXIT

# job_file NAME: a short hackbench job on "demo"; prints its path.
job_file() {
	cat >"$T/$1.yaml" <<YAML
name: $1
machines: [demo]
benchmarks:
  - name: hackbench
    params: {groups: 1, loops: 20}
    iterations: 2
    warmups: 1
YAML
	echo "$T/$1.yaml"
}

# logged TEXT: until hilabd's log holds the fixed text (10 s at most).
logged() {
	until_true 100 grep -qF -- "$1" "$HILABD_LOG" && return 0
	echo "# not in the log: $1"
	return 1
}

# job_done JOB: the job is done.
job_done() {
	test "$(sql "SELECT state FROM jobs WHERE id = $1")" = done
}

# done_within SECONDS JOB: until the job is done; says how it ended.
done_within() {
	until_true $(($1 * 10)) job_done "$2" && return 0
	echo "# job $2: $(sql "SELECT state || ' ' || COALESCE(error, '') FROM jobs WHERE id = $2")"
	return 1
}

# reloads N: hilabd has logged N reloads.
reloads() {
	test "$(grep -c 'SIGHUP: reading the inventory' "$HILABD_LOG")" -ge "$1"
}

# hup: SIGHUP, then until the reload it asked for has been logged.
hups=0
hup() {
	hups=$((hups + 1))
	kill -HUP "$daemon_pid"
	until_true 100 reloads "$hups"
}

# has FILE TEXT: the file holds the fixed text.
has() { grep -qF -- "$2" "$1"; }

echo "1..42"

# The line: --help, --version and a usage error.
"$hilabd" --help >"$T/help.out" 2>&1
check "--help exits 0" test $? = 0
check "... with the usage line and -n's meaning" \
    eval 'has "$T/help.out" "usage: hilabd [-nvdh]" && has "$T/help.out" "write nothing"'
"$hilabd" --version >"$T/version.out" 2>&1
check "--version exits 0 saying \"hilabd VERSION\"" \
    grep -qE '^hilabd [0-9]+\.[0-9]+' "$T/version.out"
"$hilabd" --bogus >/dev/null 2>"$T/usage.err"
check "a bad option exits 2" test $? = 2
check "... naming it, with the usage line" \
    eval 'has "$T/usage.err" "unknown option \"--bogus\"" && has "$T/usage.err" "usage: hilabd"'

# -n writes nothing: no new database, not even its directory.
"$hilabd" -n --db "$T/fresh/hilab.db" >"$T/n.out" 2>"$T/n.err"
check "-n on a fresh path exits 0" test $? = 0
check "... saying the database would be created" has "$T/n.out" "would be created"
check "... and creates nothing" test ! -e "$T/fresh"
printf 'name: broken\nkind: ssh\nssh: {host: h, identity: k, known_hosts: kh, prot: 22}\n' >"$T/broken.yaml"
mkdir "$T/bad"
cp "$T/broken.yaml" "$T/bad/"
"$hilabd" -n --machines "$T/bad" >/dev/null 2>"$T/nbad.err"
check "-n with a bad machine file exits 2" test $? = 2
check "... naming file:line:col" has "$T/nbad.err" "$T/bad/broken.yaml:3:46: unknown key \"prot\""

# Started with no machine, -v: every line has its time and level.
"$hilabd" -v 2>>"$HILABD_LOG" &
daemon_pid=$!
until_true 100 test -S "$HILAB_SOCKET"
check "hilabd starts with no machine" logged "ready: 0 machines"
check "its log lines carry the time and the level" grep -qE \
    '^[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3} hilabd\[[0-9]+\] info hilabd: ready' "$HILABD_LOG"

# -n beside it, with the machine's file: the database stays as it was.
cp "$T/demo.yaml" "$T/bad/demo.yaml"
rm "$T/bad/broken.yaml"
"$hilabd" -n --machines "$T/bad" >"$T/n2.out" 2>&1
check "-n on the database reads it and records no machine" \
    eval 'has "$T/n2.out" "configuration OK: 1 machines" && test "$(sql "SELECT COUNT(*) FROM machines")" = 0'

# SIGHUP adds the machine; it then takes a job.
cp "$T/demo.yaml" "$HILAB_MACHINES/"
hup
check "SIGHUP: the machine added" logged 'machine "demo" added (ssh, x86_64)'
check "... and recorded" test "$(sql "SELECT kind FROM machines WHERE name = 'demo'")" = ssh
a=$(submit "$(job_file a)")
check "job $a on the added machine is done" done_within 120 "$a"
check "-v logged the control requests" logged 'control: request "nudge"'
check "-v logged each result stored" grep -qE 'demo: run [0-9]+: result 0 \(warmup\) stored' "$HILABD_LOG"

# hilab logs tells the whole story of a job that went well.
"$hilab" logs "$a" >"$T/logs.out" 2>&1
sed 's/^/# logs: /' "$T/logs.out"
logs_has() { grep -qE -- "$1" "$T/logs.out"; }
check "logs of job $a: planned, then done with its runs" eval 'logs_has " info  planned: 1 run on 1 machine, 1 kernel, 1 round$" &&
    logs_has " info  done in [0-9.]+m?s: 1 run$"'
check "... the benchmark's tool installed or found installed" \
    logs_has ' info  demo run [0-9]+: benchmark "hackbench": rt-tests (already installed|installed in [0-9.hms]+): /.*hackbench$'
check "... the run started: its kernel, round and iterations" \
    logs_has ' info  demo run [0-9]+: started: hackbench groups=1,loops=20,mode=--process \(kernel "running" [^ ,]+, round 0\): 2 iterations \+ 1 warmup$'
check "... and done: how long, the iterations, the mean with its unit" \
    logs_has ' info  demo run [0-9]+: done in [0-9.]+m?s: 2 iterations \+ 1 warmup; time: mean [0-9.e+-]+ s \(n=2\)$'
check "... no boot told: the host keeps the kernel it runs" eval '! logs_has "booting|booted"'
"$hilab" --json logs "$a" >"$T/logs.json"
check "logs --json of job $a: a non-empty array of events" python3 -c '
import json, sys
v = json.load(open(sys.argv[1]))
sys.exit(not (isinstance(v, list) and v and all("message" in e for e in v)))' "$T/logs.json"

# A broken file: the inventory read before stays, and says why.
cp "$T/broken.yaml" "$HILAB_MACHINES/"
hup
check "SIGHUP with a broken file keeps hilabd running" kill -0 "$daemon_pid"
check "... and the inventory" logged 'has errors; keeping the 1 machine read before'
check "... naming file:line:col" logged "$HILAB_MACHINES/broken.yaml:3:46: unknown key \"prot\""
rm "$HILAB_MACHINES/broken.yaml"

# A changed machine restarts its worker, which runs the next job.
sed -i 's/^  host: .*/&\n  connect_timeout: 20s/' "$HILAB_MACHINES/demo.yaml"
hup
check "SIGHUP: the machine changed, and how" logged 'machine "demo" changed (connect_timeout: 20s)'
check "... its worker restarted" logged 'machine "demo": worker restarted'
b=$(submit "$(job_file b)")
check "job $b on the changed machine is done" done_within 60 "$b"

# hilab wait off a terminal: a line per iteration of the running run,
# with an estimate once an iteration is stored, then the job's end.
cat >"$T/w.yaml" <<YAML
name: w
machines: [demo]
benchmarks:
  - name: hackbench
    params: {groups: 1, loops: 3000}
    iterations: 5
    warmups: 1
YAML
w=$(submit "$T/w.yaml")
"$hilab" wait --timeout 120 "$w" >"$T/wait.out" 2>&1
check "wait of job $w exits 0 when it is done" test $? = 0
sed 's/^/# wait: /' "$T/wait.out" | head -12
check "... a line for the warmup" grep -Eq "^job $w: run [0-9]+: warmup 1/1 \(demo, hackbench groups=1,loops=3000,mode=--process\), [0-9]+s elapsed, " "$T/wait.out"
check "... a line per iteration, with the time left from those stored" \
    test "$(grep -Ec "^job $w: run [0-9]+: iteration [2-5]/5 \(demo, hackbench [^)]*\), [0-9]+s elapsed, about [0-9]+s left$" "$T/wait.out")" -ge 3
check "... the runs ended" grep -q "^job $w: 1/1 runs ended, 0 failed" "$T/wait.out"
check "... and its end" grep -q "^job $w done" "$T/wait.out"
"$hilab" --json wait "$w" >"$T/wait.json" 2>/dev/null
check "wait --json of the done job: outcome done" python3 -c 'import json,sys; v=json.load(open(sys.argv[1])); sys.exit(not (v["outcome"] == "done" and v["runs"]["done"] == 1))' "$T/wait.json"

# A machine removed in mid-job: its run ends, its queued run fails.
cat >"$T/c.yaml" <<YAML
name: c
machines: [demo]
benchmarks:
  - name: hackbench
    params: {groups: [1, 2], loops: 3000}
    iterations: 3
    warmups: 0
YAML
c=$(submit "$T/c.yaml")
first_run() { r=$(sql "SELECT MIN(id) FROM runs WHERE job = $c"); test -n "$r"; }
until_true 100 first_run
logged "demo: run $r: result 0 stored" >/dev/null
rm "$HILAB_MACHINES/demo.yaml"
hup
check "SIGHUP: the machine removed in mid-run" logged 'machine "demo" was removed from the inventory: its worker stops after its run; 1 queued run failed'
job_failed() { test "$(sql "SELECT state FROM jobs WHERE id = $c")" = failed; }
check "... its run ended, then job $c failed" eval 'until_true 300 job_failed &&
    test "$(sql "SELECT group_concat(state) FROM runs WHERE job = $c ORDER BY id")" = done,failed'
check "... the queued run says why" test "$(sql "SELECT error FROM runs WHERE job = $c AND id > $r")" = 'machine "demo" was removed from the inventory'
"$hilab" logs "$c" >"$T/logs.out" 2>&1
check "... its end in hilab logs: how many runs, how many failed" \
    logs_has ' error failed in [0-9.]+m?s: 2 runs, 1 failed$'

daemon_stop TERM
check "TERM: hilabd stopped" logged "signal 15: stopping"
check "no sanitizer report in hilabd's log" test "$(grep -c Sanitizer "$HILABD_LOG")" = 0
daemon_log_on_failure
exit $((failed > 0))
