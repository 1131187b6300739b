#!/usr/bin/env bash
# A sweep left running on a branch, end to end through hilabd on a lab VM
# (suite 'lab'): a cron sweep (every minute) of hackbench on a copy of vm4
# whose kernel follows a branch of the lab's Linux tree
# (tests/lib/labbranch.sh).  The branch moves as a developer's would:
# commits 1, 2 and 3, then at once to 7 (past commit 4, which does not
# build, and commit 6, which makes AF_UNIX sends 500 us slower), then 8
# and a ninth.  The sweep builds each new tip incrementally (one worktree
# kept between builds), skips slots where the branch did not move,
# suspects the step from its history, confirms it by an interleaved A/B
# job of commits 3 and 7 and mails it to an mbox, then bisects 3..7 by
# itself (--bisect), names commit 6 (never commit 4, which does not build)
# and mails that too.  Unattended: the test only moves the branch and reads
# the database and the mbox.
set -u
. "$HILAB_SRCDIR/tests/lib/labvm.sh"
for tool in git gcc make flex bison bc python3; do
	command -v $tool >/dev/null || skip_missing "$tool not installed"
done
labvm_init sweep-branch
labvm_copy vm4 sweep-vm4 127.0.0.15
. "$HILAB_SRCDIR/tests/lib/labbranch.sh"
lab_source
# A cache of this run's own (every tip is built, not found), in a worktree
# kept between builds and runs (so each tip builds incrementally).
export HILAB_KERNEL_CACHE=$T/cache HILAB_KERNEL_WORK=$lab/work
lab_branch
MBOX=$T/lab.mbox

# The branch and the tree's worktrees go whatever happened.
branch_cleanup() {
	local rc=$?

	git -C "$SRC" update-ref -d refs/heads/lab-sweep 2>/dev/null
	git -C "$SRC" worktree prune
	(exit $rc)
	labvm_cleanup
}
trap branch_cleanup EXIT

branch_job "$T/sweep.yaml" lab-sweep lab-sweep "$VM"

# measured K: the sweep has a done or failed job pinned to commit K.
measured() {
	[ "$(sql "SELECT COUNT(*) FROM jobs j JOIN sweeps s ON s.id = j.sweep
	    WHERE s.name = 'lab-sweep' AND j.state IN ('done', 'failed')
	    AND j.name = 'lab-sweep'
	    AND json_extract(j.spec, '\$.kernels[0].base') = '${BRANCH[$1]}'")" -ge 1 ]
}

# bisected: the sweep's bisection has ended.
bisected() {
	[ "$(sql "SELECT COUNT(*) FROM bisects WHERE name LIKE 'lab-sweep-bisect-%'
	    AND state != 'running'")" = 1 ]
}

# decided: the sweep's change is confirmed or rejected (or failed).
decided() {
	[ "$(sql "SELECT COUNT(*) FROM sweep_changes WHERE sweep = 1
	    AND state NOT IN ('suspected', 'confirming')")" -ge 1 ]
}

# move K: moves the branch to commit K and waits (up to 20 min: a build, a
# boot, the benchmark, a minute's slot) until the sweep measured it.
move() {
	local t0

	t0=$(date +%s)
	git -C "$SRC" update-ref refs/heads/lab-sweep "${BRANCH[$1]}"
	wait_for 1200 measured "$1" ||
	    echo "# commit $1 was not measured within 20 min"
	echo "# commit $1 (${BRANCH[$1]:0:12}) measured $(($(date +%s) - t0)) s after the branch moved"
}

echo "1..12"
daemon_start
t0=$(date +%s)
git -C "$SRC" update-ref refs/heads/lab-sweep "${BRANCH[1]}"
"$hilab" sweep add lab-sweep "$T/sweep.yaml" --cron "* * * * *" \
    --mbox "$MBOX" --bisect 150 >"$T/add.out"
check "sweep add: a cron sweep of the branch, mailing" \
    grep -q '^sweep "lab-sweep" added: .* cron \* \* \* \* \*' "$T/add.out"
for k in 1 2 3 7 8; do move $k; done
# A third point after the step: the branch moves on by a comment.
BRANCH[9]=$(branch_commit "${BRANCH[8]}" README 's/(lab 7)/(lab 9)/' "lab: 9, README")
move 9
jobs=$(sql "SELECT group_concat(substr(json_extract(spec, '\$.kernels[0].base'), 1, 12) || ':' || state, ' ') FROM jobs WHERE sweep = 1 AND name = 'lab-sweep' ORDER BY id")
echo "# sweep jobs: $jobs"
check "one job per tip the branch took, each built and done" \
    test "$(sql "SELECT COUNT(*) || '/' || SUM(state = 'done') FROM jobs WHERE sweep = 1 AND name = 'lab-sweep'")" = 6/6
check "each tip built once: no kernel built twice" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE message LIKE 'kernel build:% built %'")" = 6
wait_for 1800 decided || echo "# the change was not decided within 30 min"
echo "# the sweep and its confirmation took $(($(date +%s) - t0)) s"
sql "SELECT message FROM events WHERE sweep = 1 AND level IN ('warn', 'error')" | sed 's/^/# /'
check "slots where the branch had not moved were skipped, saying so" \
    test "$(sql "SELECT COUNT(*) > 0 FROM events WHERE message LIKE '%skipped: no new commit since job %'")" = 1
change=$(sql "SELECT verdict || ' ' || state || ' ' || confirm_job || ' ' || confirm_effect_pct || ' p=' || confirm_p FROM sweep_changes WHERE sweep = 1")
echo "# change: $change"
check "the step was suspected at commit 7's job, a regression" \
    test "$(sql "SELECT COUNT(*) FROM sweep_changes c JOIN jobs j ON j.id = c.job WHERE c.sweep = 1 AND c.verdict = 'regression' AND json_extract(j.spec, '\$.kernels[0].base') = '${BRANCH[7]}'")" = 1
check "... and confirmed by its A/B job, commits 3 and 7 alternating" \
    test "$(sql "SELECT c.state || ' ' || json_extract(j.spec, '\$.kernels[0].base') || ' ' || json_extract(j.spec, '\$.kernels[1].base') FROM sweep_changes c JOIN jobs j ON j.id = c.confirm_job WHERE c.sweep = 1")" = "confirmed ${BRANCH[3]} ${BRANCH[7]}"
"$hilab" sweep show lab-sweep >"$T/show.txt"
sed 's/^/# /' "$T/show.txt" | head -30
check "sweep show lists the jobs with their commits" \
    grep -q "built from $SRC at ${BRANCH[7]}" "$T/show.txt"
t1=$(date +%s)
wait_for 2400 bisected || echo "# the bisection did not end within 40 min"
echo "# the sweep's bisection ended $(($(date +%s) - t1)) s after the confirmation"
id=$(sql "SELECT id FROM bisects WHERE name LIKE 'lab-sweep-bisect-%'")
"$hilab" bisect show "${id:-0}" >"$T/bisect.txt" 2>&1
sed 's/^/# /' "$T/bisect.txt"
check "the sweep bisected 3..7 by itself" \
    test "$(sql "SELECT json_extract(commits, '\$[0]') || ' ' || json_extract(commits, '\$[#-1]') FROM bisects WHERE id = ${id:-0}")" = "${BRANCH[3]} ${BRANCH[7]}"
check "... and found commit 6, the slow one (never commit 4, which does not build)" \
    test "$(sql "SELECT state || ' ' || json_extract(result, '\$.first_commit') || ' ' || json_extract(result, '\$.last_commit') FROM bisects WHERE id = ${id:-0}")" = "found $BRANCH_SLOW $BRANCH_SLOW"
python3 - "$MBOX" "${BRANCH[3]:0:12}" "${BRANCH[7]:0:12}" "${BRANCH_SLOW:0:12}" >"$T/mbox.out" 2>&1 <<'PY'
import mailbox, sys
v = list(mailbox.mbox(sys.argv[1]))
s = [m["Subject"] for m in v]
print("subjects:", s)
b = [m.get_payload() for m in v]
if (len(v) == 2 and s[0].startswith("[hilab] sweep lab-sweep: regression "
        "confirmed: hackbench time") and "git -C" in b[0]
        and sys.argv[2] in b[0] and sys.argv[3] in b[0]
        and "lab: 6, af_unix: 500 us per stream send" in b[0]):
    print("CONFIRMED-MAILED")
if (len(v) == 2 and " found: hackbench time on " in s[1]
        and "first bad commit: " + sys.argv[4] in b[1] and "verdict" in b[1]):
    print("BISECTED-MAILED")
PY
sed 's/^/# /' "$T/mbox.out"
check "the mbox: the confirmed regression with its commit range (git log 3..7 names commit 6)" \
    grep -q CONFIRMED-MAILED "$T/mbox.out"
check "... then the bisection's result, commit 6 with the evidence" \
    grep -q BISECTED-MAILED "$T/mbox.out"
check "nothing failed: no error event" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE level = 'error' AND job IN (SELECT id FROM jobs WHERE sweep = 1)")" = 0
daemon_stop TERM
exit $((failed > 0))
