#!/usr/bin/env bash
# A bisection end to end through hilabd on a lab VM (suite 'lab'): the
# branch of tests/lib/labbranch.sh on a real Linux 6.1 tree, where commit
# 4 does not build (commit 5 mends it) and commit 6 makes every AF_UNIX
# stream send 500 us slower (hackbench -g 1 -l 20 sends 8000: some 4 s
# more under TCG, about double).  hilab bisect start states its range and
# budget, then hilabd builds, boots and measures the commits its search
# picks, each step job the commit between one run of each end on a copy of
# vm4, and names commit 6; commit 4, the middle and so tried first, is
# shown as not building, never blamed.
set -u
. "$HILAB_SRCDIR/tests/lib/labvm.sh"
for tool in git gcc make flex bison bc; do
	command -v $tool >/dev/null || skip_missing "$tool not installed"
done
labvm_init bisect
labvm_copy vm4 bisect-vm4 127.0.0.16
. "$HILAB_SRCDIR/tests/lib/labbranch.sh"
lab_source
# Built commits are kept between runs (the range is the same each time),
# in a worktree kept between builds (so each commit builds incrementally).
export HILAB_KERNEL_CACHE=$lab/bisect-cache HILAB_KERNEL_WORK=$lab/work
lab_branch
base=$BRANCH_BASE
tip=${BRANCH[8]}
slow=$BRANCH_SLOW

branch_cleanup() {
	local rc=$?

	git -C "$SRC" worktree prune
	(exit $rc)
	labvm_cleanup
}
trap branch_cleanup EXIT

branch_job "$T/bisect.yaml" lab-bisect "$tip" "$VM"

# ended ID: bisection ID is no longer running.
ended() {
	[ "$(sql "SELECT state FROM bisects WHERE id = $1")" != running ]
}

echo "1..8"
daemon_start
t0=$(date +%s)
out=$("$hilab" bisect start "$T/bisect.yaml" --good "$base" --bad "$tip" --budget 150)
check "bisect start accepted the range" test $? = 0
echo "# $out"
id=$(sql "SELECT max(id) FROM bisects")
check "it states 8 commits and its budget before it starts" \
    grep -q "8 commits after the good end on $VM.*at most 150 samples" <<<"$out"
wait_for 5400 ended "$id" || echo "# bisection $id still running after 90 min"
echo "# bisection $id took $(($(date +%s) - t0)) s"
"$hilab" bisect show "$id" >"$T/show.txt"
sed 's/^/# /' "$T/show.txt"
check "the bisection found the first bad commit" \
    test "$(sql "SELECT state FROM bisects WHERE id = $id")" = found
check "it is commit 6, the slow one" \
    test "$(sql "SELECT json_extract(result, '\$.first_commit') || json_extract(result, '\$.last_commit') FROM bisects WHERE id = $id")" = "$slow$slow"
check "show names it with its subject" \
    grep -q "first bad commit: ${slow:0:12} \"lab: 6, af_unix" "$T/show.txt"
check "commit 4 (the middle, tried first) is shown as not building" \
    grep -qE "^ +4 [0-9a-f]{12} +0 .* no build +lab: 4" "$T/show.txt"
check "every step job measured its commit between the ends, on $VM" \
    test "$(sql "SELECT COUNT(*) FROM bisect_steps s JOIN jobs j ON j.id = s.job WHERE s.bisect = $id AND json_array_length(j.spec, '\$.kernels') = CASE s.commit_index WHEN 0 THEN 2 ELSE 3 END AND json_extract(j.spec, '\$.machines[0]') = '$VM'")" = "$(sql "SELECT COUNT(*) FROM bisect_steps WHERE bisect = $id")"
check "within its budget" \
    test "$(sql "SELECT json_extract(result, '\$.samples') <= 150 FROM bisects WHERE id = $id")" = 1
echo "# steps: $(sql "SELECT group_concat(commit_index, ' ') FROM bisect_steps WHERE bisect = $id")"
daemon_stop TERM
exit $((failed > 0))
