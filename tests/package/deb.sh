#!/usr/bin/env bash
# The Debian package on a fresh Debian 12 root (../shared/fresh-check: a
# clean clone of HEAD, only scripts/install-deps.sh installs anything):
# built and checked by lintian, installed with apt, then used as a lab
# admin would (in_root.sh).  Slow (about 4 minutes: the packages, the
# build, the demo lab), so in the slow suite.  (TAP)
set -u
fresh=$HILAB_SRCDIR/../shared/fresh-check
. "$HILAB_SRCDIR/tests/lib/skip.sh"
[ -x "$fresh" ] || skip_machine "no ../shared/fresh-check here"
cd "$HILAB_SRCDIR" || exit 1
"$fresh" -t 3000 "bash tests/package/in_root.sh"
