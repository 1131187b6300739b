#!/bin/sh
# Runs one step of the lab VM driver against the real lab: brings the lab
# up first (scripts/lab.sh up: fast once done), then runs
# DRIVER STEP MACHINE with the lab's environment.  Root only.
set -eu
driver=$1
shift
. "$HILAB_SRCDIR/tests/lib/skip.sh"
[ "$(id -u)" = 0 ] || skip_missing "needs root (libvirtd, qemu:///system)"
src=${HILAB_SRCDIR:?HILAB_SRCDIR not set}
t0=$(date +%s.%N)
labenv=$("$src/scripts/lab.sh" up) || { echo "FAIL: scripts/lab.sh up" >&2;
    exit 1; }
eval "$labenv"
echo "lab up in $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $t0 }") s"
exec "$driver" "$@"
