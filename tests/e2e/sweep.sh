#!/usr/bin/env bash
# Scheduled sweeps end to end on a real lab host (sshd in a network
# namespace), the real agent and SQLite: a hackbench sweep every 2 s queues
# one job at a time, a job file that turns invalid queues nothing, a cron
# sweep whose slots passed while hilabd was down runs once, and the change
# point check flags a custom command that really got slower (and not one
# that stayed the same or got faster).
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
    iterations: 3
YAML
}

# nap_skips: the nap sweep's skipped slots.
nap_skips() {
	sql "SELECT COUNT(*) FROM events e JOIN sweeps s ON s.id = e.sweep
	    WHERE s.name = 'nap' AND e.message LIKE '%skipped: job % is still %'"
}

# nap_job K [SKIP]: runs the nap sweep until its K-th job ended and was
# checked; with SKIP, lets one slot pass while the job runs.
nap_job() {
	"$hilab" sweep enable nap >/dev/null
	wait_for 30 at_least "$1" sweep_jobs nap
	[ -z "${2:-}" ] || wait_for 10 at_least 1 nap_skips
	"$hilab" sweep disable nap >/dev/null
	wait_for 60 at_least 1 sql "SELECT COUNT(*) FROM jobs j JOIN sweeps s
	    ON s.id = j.sweep WHERE s.name = 'nap' AND j.id = s.checked_job
	    AND j.id = s.last_job
	    AND (SELECT COUNT(*) FROM jobs WHERE sweep = s.id) = $1" ||
	    echo "# job $1 of the nap sweep was not checked within 60 s"
}

# nap_worse K: the warn events (suspected regressions) of the nap sweep's
# K-th job.
nap_worse() {
	sql "SELECT COUNT(*) FROM events e JOIN sweeps s ON s.id = e.sweep
	    WHERE s.name = 'nap' AND e.level = 'warn' AND e.job = (SELECT id
	    FROM jobs WHERE sweep = s.id ORDER BY id LIMIT 1 OFFSET $(($1 - 1)))"
}

echo "1..27"

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

# A cron sweep every minute whose last 10 slots passed while hilabd was
# down: queued once at start, then due at the next minute.
"$hilab" sweep add minutely "$LAB_TMP/hb.yaml" --cron "* * * * *" >"$LAB_TMP/add.out"
check "sweep add --cron names the schedule" grep -q '^sweep "minutely" added: .* cron \* \* \* \* \*, first run' "$LAB_TMP/add.out"
daemon_stop TERM
sql "UPDATE sweeps SET next_at = (strftime('%s', 'now') - 600) / 60 * 60000 WHERE name = 'minutely'"
daemon_start
wait_for 10 at_least 1 sweep_jobs minutely
"$hilab" sweep disable minutely >/dev/null
sleep 1
now=$(($(date +%s) * 1000))
check "10 missed cron slots queue one job" test "$(sweep_jobs minutely)" = 1
next=$(sql "SELECT next_at FROM sweeps WHERE name = 'minutely'")
check "... and the next slot is the next minute" test $((next % 60000)) = 0 -a "$next" -gt $((now - 60000)) -a "$next" -le $((now + 60000))
check "... with no skipped-slot events" test "$(sql "SELECT COUNT(*) FROM events e JOIN sweeps s ON s.id = e.sweep WHERE s.name = 'minutely' AND e.message LIKE '%skipped%'")" = 0

# Change points on measured sleeps: 3 jobs of 0.2 s, 3 of 0.4 s (worse,
# found once the sixth is done), one more of 0.4 s (same), then 3 of
# 0.2 s (better: an improvement, not a regression).
nap_file 0.2
"$hilab" sweep add nap "$LAB_TMP/nap.yaml" --every 1s >/dev/null
"$hilab" sweep disable nap >/dev/null
for k in 1 2 3; do nap_job $k; done
nap_file 0.4
nap_job 4 skip
check "a slot while job 4 runs is skipped, with an event" test "$(nap_skips)" -ge 1
nap_job 5
check "3 jobs at 0.2 s and 2 at 0.4 s: not yet a change" test "$(nap_worse 5)" = 0
nap_job 6
check "0.2 s -> 0.4 s sleep is flagged worse after the third job" test "$(nap_worse 6)" = 1
job3=$(sql "SELECT id FROM jobs WHERE name = 'nap' ORDER BY id LIMIT 1 OFFSET 2")
job4=$(sql "SELECT id FROM jobs WHERE name = 'nap' ORDER BY id LIMIT 1 OFFSET 3")
msg=$(sql "SELECT message FROM events WHERE level = 'warn' AND sweep = (SELECT id FROM sweeps WHERE name = 'nap')")
echo "# $msg"
check "the event names the series, values, change, p and the job it changed at" eval "echo '$msg' | grep -Eq '^sweep \"nap\": suspected regression: nap took on demo: [0-9]+ -> [0-9]+ us \\(\\+[0-9.]+%, worse, p=[0-9.e-]+\\) from job $job4 on \\(after job $job3\\)\$'"
check "the change is stored, from job 4, and is being confirmed" test "$(sql "SELECT job || ' ' || before_job || ' ' || verdict || ' ' || (state IN ('confirming', 'confirmed')) FROM sweep_changes")" = "$job4 $job3 regression 1"
nap_job 7
check "0.4 s -> 0.4 s is not flagged" test "$(nap_worse 7)" = 0
nap_file 0.2
for k in 8 9 10; do nap_job $k; done
check "0.4 s -> 0.2 s (better) is not flagged worse" test "$(nap_worse 8),$(nap_worse 9),$(nap_worse 10)" = 0,0,0
check "... but found as an improvement" test "$(sql "SELECT COUNT(*) FROM events WHERE level = 'info' AND message LIKE 'sweep \"nap\": suspected improvement: nap took on demo: % -> % us (-%, better, p=%) from job % on (after job %)'")" = 1
check "all ten nap jobs done, each checked" test "$(sql "SELECT COUNT(*) FROM jobs WHERE name = 'nap' AND state = 'done'"),$(sql "SELECT COUNT(*) FROM events WHERE message LIKE 'sweep \"nap\": job % series checked for change points: %'")" = 10,10
"$hilab" --json sweep show nap >"$LAB_TMP/nap.json"
check "sweep show --json has both changes" python3 -c 'import json,sys; v=json.load(open(sys.argv[1]))["changes"]; sys.exit(not ([c["verdict"] for c in v] == ["regression", "improvement"] and v[0]["job"] == int(sys.argv[2]) and v[0]["effect_pct"] > 20 and v[1]["effect_pct"] < -15))' "$LAB_TMP/nap.json" "$job4"
"$hilab" sweep show nap >"$LAB_TMP/nap.out"
check "sweep show lists the regression" eval "sed -n '/^regressions:/,/^events:/p' '$LAB_TMP/nap.out' | grep -q 'suspected regression: nap took on demo:.*worse, p='"
"$hilab" sweep rm nap >/dev/null
check "sweep rm keeps the jobs" test "$(sql "SELECT COUNT(*) FROM jobs WHERE name = 'nap' AND sweep IS NULL")" = 10

daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
