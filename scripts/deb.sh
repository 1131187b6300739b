#!/usr/bin/env bash
# Builds hilab's Debian package from the files git tracks (debian/: meson
# through debhelper) and runs lintian over it; the .deb files go to
# OUTDIR.  Needs the build dependencies of debian/control (all in
# scripts/packages.txt).  Exits non-zero when the build fails or lintian
# reports an error or a warning (debian/hilab.lintian-overrides says why
# the agents are static).
#
#	scripts/deb.sh OUTDIR
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/step.sh"
STEP_TAG=deb
[ $# = 1 ] || { echo "usage: scripts/deb.sh OUTDIR" >&2; exit 2; }
mkdir -p "$1"
out=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/hilab"
git -C "$top" ls-files -z | (cd "$top" && tar --null -cf - -T -) | tar -xf - -C "$work/hilab"
(cd "$work/hilab" && step "dpkg-buildpackage -b -us -uc" dpkg-buildpackage -b -us -uc)
lintian --tag-display-limit 0 "$work"/hilab_*.changes >"$work/lintian.txt" 2>&1 || true
grep -v 'root privileges' "$work/lintian.txt" >&2 || true
cp "$work"/*.deb "$out/"
if grep -q '^[EW]: ' "$work/lintian.txt"; then
	echo "deb: lintian reports errors or warnings (above)" >&2
	exit 1
fi
ls "$out"/hilab_*.deb
