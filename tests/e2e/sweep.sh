#!/usr/bin/env bash
# Scheduled sweeps end to end on a real lab host (sshd in a network
# namespace), the real agent and SQLite: a hackbench sweep every 2 s queues
# one job at a time, a job file that turns invalid queues nothing, and the
# regression check flags a custom command that really got slower (and not
# one that stayed the same or got faster).
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
eval "$(lab_host_up demo)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
daemon_lab_host demo

trap daemon_cleanup EXIT

# sweep_jobs NAME [STATE]: how many jobs the sweep queued (in that state).
sweep_jobs() {
	sql "SELECT COUNT(*) FROM jobs j JOIN sweeps s ON s.id = j.sweep
	    WHERE s.name = '$1' AND ('${2:-}' = '' OR j.state = '${2:-}')"
}

# wait_for SECONDS COMMAND...: until the command succeeds.
wait_for() {
	local end=$(($(date +%s) + $1))

	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# at_least N COMMAND...: the command prints a number >= N.
at_least() {
	local want=$1

	shift
	[ "$("$@")" -ge "$want" ]
}

# nap_file T: the custom job timing `sleep T` from inside the command (the
# same benchmark and parameters whatever T, so the runs compare).
nap_file() {
	cat >"$LAB_TMP/nap.yaml" <<YAML
name: nap
machines: [demo]
benchmarks:
  - name: nap
    command: [sh, -c, "s=\$(date +%s%N); sleep $1; e=\$(date +%s%N); echo took \$(((e - s) / 1000))"]
    parser: regex
    parser_args: "took[us]=took ([0-9]+)"
    metrics: [{name: took, unit: us, direction: lower}]
    iterations: 6
YAML
}

# nap_skips: the nap sweep's skipped slots.
nap_skips() {
	sql "SELECT COUNT(*) FROM events e JOIN sweeps s ON s.id = e.sweep
	    WHERE s.name = 'nap' AND e.message LIKE '%skipped: job % is still %'"
}

# nap_job K [SKIP]: runs the nap sweep until its K-th job ended and was
# compared; with SKIP, lets one slot pass while the job runs.
nap_job() {
	"$hilab" sweep enable nap >/dev/null
	wait_for 30 at_least "$1" sweep_jobs nap
	[ -z "${2:-}" ] || wait_for 10 at_least 1 nap_skips
	"$hilab" sweep disable nap >/dev/null
	wait_for 60 at_least "$1" sql "SELECT COUNT(*) FROM jobs j JOIN sweeps s
	    ON s.id = j.sweep WHERE s.name = 'nap' AND j.id = s.checked_job
	    AND (SELECT COUNT(*) FROM jobs WHERE sweep = s.id) = $1"
}

# nap_worse K: the warn events of the nap sweep's K-th job.
nap_worse() {
	sql "SELECT COUNT(*) FROM events e JOIN sweeps s ON s.id = e.sweep
	    WHERE s.name = 'nap' AND e.level = 'warn' AND e.job = (SELECT id
	    FROM jobs WHERE sweep = s.id ORDER BY id LIMIT 1 OFFSET $(($1 - 1)))"
}

echo "1..19"

cat >"$LAB_TMP/hb.yaml" <<YAML
name: hb
machines: [demo]
benchmarks:
  - name: hackbench
    params: {groups: 1, loops: 50}
    iterations: 3
    warmups: 0
YAML

# A sweep every 2 s: one job at a time, two done within a bounded time.
"$hilab" sweep add hb "$LAB_TMP/hb.yaml" --every 2s >"$LAB_TMP/add.out"
check "sweep add names the sweep" grep -q '^sweep "hb" added' "$LAB_TMP/add.out"
"$hilab" sweep add hb "$LAB_TMP/hb.yaml" --every 2s 2>"$LAB_TMP/dup.err"
check "a second sweep \"hb\" is refused" grep -q 'sweep "hb": already exists' "$LAB_TMP/dup.err"
daemon_start
wait_for 90 at_least 2 sweep_jobs hb done
check "two hackbench sweep jobs done within 90 s" test "$(sweep_jobs hb done)" -ge 2
"$hilab" sweep disable hb >/dev/null
overlap=$(sql "SELECT COUNT(*) FROM jobs a JOIN jobs b ON b.sweep = a.sweep
    AND b.id > a.id WHERE a.sweep IS NOT NULL
    AND b.submitted_at < a.finished_at")
check "each job queued only after the one before ended" test "$overlap" = 0
check "their samples are stored" test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run JOIN jobs j ON j.id = r.job WHERE j.sweep IS NOT NULL AND s.metric = 'time' AND s.value > 0")" -ge 6
"$hilab" sweep list >"$LAB_TMP/list.out"
last=$(sql "SELECT MAX(id) FROM jobs WHERE sweep IS NOT NULL")
check "sweep list shows hb, 2s, its last job and state" grep -Eq "^hb +2s +disabled +$last [a-z]+ +$LAB_TMP/hb.yaml" "$LAB_TMP/list.out"
"$hilab" sweep show hb >"$LAB_TMP/show.out"
first=$(sql "SELECT MIN(id) FROM jobs WHERE sweep IS NOT NULL")
check "sweep show lists the jobs newest first" test "$(grep -Eo '^ +[0-9]+  (done|running|queued)' "$LAB_TMP/show.out" | awk '{print $1}' | sed -n '1p;$p' | tr '\n' ' ')" = "$last $first "
check "sweep show --json has the jobs" test "$("$hilab" --json sweep show hb | grep -c '"state": "done"')" -ge 2

# A job file that turns invalid: an event with file:line:col, no job.
daemon_stop TERM
cp "$LAB_TMP/hb.yaml" "$LAB_TMP/broken.yaml"
t0=$(($(date +%s) * 1000))
"$hilab" sweep add broken "$LAB_TMP/broken.yaml" --every 1h >/dev/null
printf '    iteratons: 3\n' >>"$LAB_TMP/broken.yaml"
daemon_start
wait_for 10 at_least 1 sql "SELECT COUNT(*) FROM events e JOIN sweeps s ON s.id = e.sweep WHERE s.name = 'broken' AND e.level = 'error'"
check "the invalid file is an error event with file:line:col" test "$(sql "SELECT COUNT(*) FROM events e JOIN sweeps s ON s.id = e.sweep WHERE s.name = 'broken' AND e.level = 'error' AND e.message LIKE '%broken.yaml:8:5: unknown key \"iteratons\"%'")" = 1
check "nothing is queued for it" test "$(sweep_jobs broken)" = 0
check "its next run moved an hour on" test "$(sql "SELECT next_at FROM sweeps WHERE name = 'broken'")" -gt $((t0 + 3500000))

# Regression check on measured sleeps: 0.2 s, then 0.4 s (worse), 0.4 s
# again (same), 0.2 s (better).
nap_file 0.2
"$hilab" sweep add nap "$LAB_TMP/nap.yaml" --every 1s >/dev/null
"$hilab" sweep disable nap >/dev/null
nap_job 1
nap_file 0.4
nap_job 2 skip
check "a slot while job 2 runs is skipped, with an event" test "$(nap_skips)" -ge 1
check "0.2 s -> 0.4 s sleep is flagged worse" test "$(nap_worse 2)" = 1
msg=$(sql "SELECT message FROM events WHERE level = 'warn' AND sweep = (SELECT id FROM sweeps WHERE name = 'nap')")
echo "# $msg"
check "the event names metric, machine, values, change and p" eval "echo '$msg' | grep -Eq '^sweep \"nap\": nap took on demo: 2[0-9]{5} -> 4[0-9]{5} us \\(\\+[0-9.]+%, worse, p=[0-9.e-]+\\)\$'"
nap_file 0.4
nap_job 3
check "0.4 s -> 0.4 s is not flagged" test "$(nap_worse 3)" = 0
nap_file 0.2
nap_job 4
check "0.4 s -> 0.2 s (better) is not flagged" test "$(nap_worse 4)" = 0
check "all four nap jobs done, each compared" test "$(sql "SELECT COUNT(*) FROM jobs WHERE name = 'nap' AND state = 'done'"),$(sql "SELECT COUNT(*) FROM events WHERE message LIKE 'sweep \"nap\": job % against job %: % of 1 metrics worse'")" = 4,3
"$hilab" sweep show nap >"$LAB_TMP/nap.out"
check "sweep show lists the regression" eval "sed -n '/^regressions:/,/^events:/p' '$LAB_TMP/nap.out' | grep -q 'nap took on demo:.*worse, p='"
"$hilab" sweep rm nap >/dev/null
check "sweep rm keeps the jobs" test "$(sql "SELECT COUNT(*) FROM jobs WHERE name = 'nap' AND sweep IS NULL")" = 4

daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
