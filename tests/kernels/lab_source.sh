#!/bin/sh
# Prepares a real kernel git tree for the kernel build lab test: Debian's
# linux-source-6.1 unpacked and committed once as the base, kept in a cache
# directory between runs (HILAB_LAB_CACHE, default /var/cache/hilab/lab).
# Prints the tree's path; exits 77 (skip; a failure in CI) when the source
# cannot be had.
set -eu
. "$(dirname "$0")/../lib/skip.sh"

lab=${HILAB_LAB_CACHE:-/var/cache/hilab/lab}
tar=/usr/src/linux-source-6.1.tar.xz
src=$lab/linux-6.1

if [ ! -f "$tar" ]; then
	echo "lab_source: installing linux-source-6.1" >&2
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y \
	    linux-source-6.1 >&2; then
		skip_missing "lab_source: linux-source-6.1 unavailable"
	fi
fi
ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || echo \
    unknown)
if [ "$(cat "$src/.git/hilab-ready" 2>/dev/null)" = "$ver" ]; then
	echo "$src"
	exit 0
fi
start=$(date +%s)
echo "lab_source: unpacking $tar ($ver) into $src" >&2
rm -rf "$src" "$src.tmp"
mkdir -p "$src.tmp"
tar -C "$src.tmp" --strip-components=1 -xJf "$tar"
cd "$src.tmp"
git init -q
# Debian's .gitignore ignores the whole top level (its packaging keeps only
# debian/ in git): add the unpacked source regardless.
git add -A -f
git -c user.name=hilab -c user.email=hilab@localhost commit -q \
    -m "linux-source-6.1 $ver"
echo "$ver" > .git/hilab-ready
cd /
mv "$src.tmp" "$src"
echo "lab_source: source ready in $(( $(date +%s) - start )) s" >&2
echo "$src"
