#!/bin/sh
# Writes the lab's two-patch series for the Linux tree $1 into directory $2:
# good.mbox (patch 1 prints a line at boot, patch 2 changes the banner of
# the console's "Linux version" line and of /proc/version), and bad.mbox,
# the same series made against another base, whose patch 2 does not apply.
# Dates and authors are fixed: the same tree gives the same mboxes.
set -eu

src=$1
run=$2
base=$(git -C "$src" rev-parse HEAD)

# Writes a changed copy of a file of a tree into the index being built:
# $1 file, $2 sed script.
edit() {
	git -C "$src" show "$tree:$1" | sed "$2" > "$run/blob"
	if git -C "$src" show "$tree:$1" | cmp -s - "$run/blob"; then
		echo "lab_kernels: edit of $1 changed nothing" >&2
		exit 1
	fi
	blob=$(git -C "$src" hash-object -w "$run/blob")
	GIT_INDEX_FILE=$run/index git -C "$src" update-index \
	    --cacheinfo "100644,$blob,$1"
}

# Commits the index on top of $1 with message $2; prints the commit.
commit() {
	t=$(GIT_INDEX_FILE=$run/index git -C "$src" write-tree)
	GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" \
	GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
	    git -C "$src" -c user.name="Lab Author" \
	    -c user.email=lab@localhost commit-tree "$t" -p "$1" -m "$2"
}

# The series: patch 1 prints a line at boot, patch 2 changes the banner of
# the console's "Linux version" line and of /proc/version.
series() {
	from=$1
	tree=$from
	GIT_INDEX_FILE=$run/index git -C "$src" read-tree "$tree"
	edit init/main.c '/pr_notice("%s", linux_banner);/a\
	pr_notice("hilab: patch 1 of the lab series\\n");'
	c1=$(commit "$from" "init: say which lab patch booted")
	tree=$c1
	edit init/version-timestamp.c \
	    's/") " UTS_VERSION "\\n";/") " UTS_VERSION " hilab-patch-2\\n";/'
	edit init/version.c \
	    '/ (" LINUX_COMPILER ") %s\\n";/s/\\n";/ hilab-patch-2\\n";/'
	c2=$(commit "$c1" "init: mark the version banner of patch 2")
	git -C "$src" format-patch -q --cover-letter --stdout "$from..$c2"
}

series "$base" > "$run/good.mbox"
# The same series made against another base, whose banner comment differs:
# its patch 2 does not apply to the real base.
tree=$base
GIT_INDEX_FILE=$run/index git -C "$src" read-tree "$base"
edit init/version-timestamp.c \
    "s|/\\* FIXED STRINGS! Don't touch! \\*/|/* Fixed strings, do not touch */|"
other=$(commit "$base" "init: reword a comment")
series "$other" > "$run/bad.mbox"
rm -f "$run/index" "$run/blob"

