# The lab's branch of eight commits on the lab's Linux tree ($SRC, from
# tests/kernels/lab_source.sh), for the lab tests that build kernels along
# it.  Its commits carry fixed authors and dates, so they are
# the same objects in every test and run, and a kernel one test built is in
# the other's cache.  Commit 4 does not build (commit 5 mends it); commit 6
# makes every AF_UNIX stream send 500 us slower (hackbench -g 1 -l 20
# sends 8000: some 4 s more on 4 vCPUs under TCG, about double).
#
# lab_source: sets $lab (the lab's cache) and $SRC (the lab's Linux tree,
# made once, under a lock, by tests/kernels/lab_source.sh); exits as that
# does when it cannot.
# lab_branch: sets BRANCH_BASE (the tree's HEAD), BRANCH[1..8] (the
# commits, in order) and BRANCH_SLOW (commit 6); needs $T for scratch.
# branch_job FILE NAME BASE MACHINE: the job file that builds BASE (a
# commit or a branch) on the lab's kernel config and times hackbench on
# MACHINE.

lab_source() {
	local rc=0

	lab=${HILAB_LAB_CACHE:-/var/cache/hilab/lab}
	mkdir -p "$lab"
	SRC=$(flock "$lab/.source.lock" \
	    "$HILAB_SRCDIR/tests/kernels/lab_source.sh") || rc=$?
	[ $rc = 0 ] || exit $rc
}

# branch_commit TIP FILE SED SUBJECT: a commit on TIP changing FILE by SED;
# prints its id.
branch_commit() {
	local tip=$1 blob tree

	git -C "$SRC" show "$tip:$2" | sed "$3" >"$T/blob"
	blob=$(git -C "$SRC" hash-object -w "$T/blob")
	GIT_INDEX_FILE=$T/index git -C "$SRC" read-tree "$tip"
	GIT_INDEX_FILE=$T/index git -C "$SRC" update-index \
	    --cacheinfo "100644,$blob,$2"
	tree=$(GIT_INDEX_FILE=$T/index git -C "$SRC" write-tree)
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" \
	GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
	    git -C "$SRC" -c user.name="Lab Author" \
	    -c user.email=lab@localhost commit-tree "$tree" -p "$tip" -m "$4"
}

lab_branch() {
	local sched=kernel/sched/core.c unix=net/unix/af_unix.c def gc tip

	BRANCH_BASE=$(git -C "$SRC" rev-parse HEAD)
	BRANCH=("$BRANCH_BASE")
	tip=$BRANCH_BASE
	tip=$(branch_commit "$tip" README 's/^Linux kernel$/Linux kernel (lab 1)/' "lab: 1, README")
	BRANCH[1]=$tip
	tip=$(branch_commit "$tip" $sched '1s|^|/* lab: 2 */\n|' "lab: 2, a comment in core.c")
	BRANCH[2]=$tip
	tip=$(branch_commit "$tip" README 's/(lab 1)/(lab 3)/' "lab: 3, README")
	BRANCH[3]=$tip
	tip=$(branch_commit "$tip" $sched '1s|^|lab 4 does not build\n|' "lab: 4, does not build")
	BRANCH[4]=$tip
	tip=$(branch_commit "$tip" $sched '1s|^lab 4 does not build$||' "lab: 5, builds again")
	BRANCH[5]=$tip
	# Commit 6: udelay(500) in unix_stream_sendmsg, after its scm_send.
	def='^static int unix_stream_sendmsg(struct socket \*sock, struct msghdr \*msg,$'
	gc='^\twait_for_unix_gc(scm.fp);$'
	tip=$(branch_commit "$tip" $unix "\\|$def|,\\|$gc| s|$gc|\\tudelay(500);\\n&|; s|$def|#include <linux/delay.h>\\n&|" \
	    "lab: 6, af_unix: 500 us per stream send")
	BRANCH[6]=$tip
	BRANCH_SLOW=$tip
	tip=$(branch_commit "$tip" README 's/(lab 3)/(lab 7)/' "lab: 7, README")
	BRANCH[7]=$tip
	tip=$(branch_commit "$tip" $sched '1s|^|/* lab: 8 */\n|' "lab: 8, a comment in core.c")
	BRANCH[8]=$tip
	git -C "$SRC" show "$BRANCH_SLOW" | grep -q 'udelay(500);' ||
	    { echo "Bail out! the slow commit does not add its udelay"; exit 1; }
}

branch_job() {
	cat >"$1" <<YAML
name: $2
machines: [$4]
kernels:
  - name: tip
    git: $SRC
    base: $3
    config: tinyconfig
    fragments: [$HILAB_SRCDIR/scripts/lab-kernel.config]
benchmarks:
  - name: hackbench
    params: {groups: 1, loops: 20}
    iterations: 3
YAML
}
