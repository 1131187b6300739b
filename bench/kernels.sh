#!/usr/bin/env bash
# Kernel variant builds (bench/run's kernels part): the lab's kernel test
# (tests/kernels/lab_kernels.sh) builds Linux 6.1 from Debian's
# linux-source for a two-patch series, tinyconfig plus the lab's options,
# through hilab's builder: the base in full, then patch 1 and patch 1+2
# incrementally in the same worktree (and boots each under qemu, not
# timed here).  Rows on stdout: each variant's build against the base's
# full build.  Root; ~10 min on two cores.
#
#	bench/kernels.sh BUILD_DIR
set -u
export HILAB_BUILDDIR=${1:?build dir}
build=$HILAB_BUILDDIR
export HILAB_SRCDIR=${HILAB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$HILAB_SRCDIR/bench/lib.sh"
out=$("$HILAB_SRCDIR/tests/kernels/lab_kernels.sh" "$build/tests/kernels/lab_kernels") ||
    { echo "kernels: the lab's kernel builds failed:" >&2; tail -5 <<<"$out" >&2; exit 1; }
read -r full p1 p12 < <(sed -n 's/^# timings: full build (base) \([0-9.]*\) s, incremental patch 1 \([0-9.]*\) s, patch 1+2 \([0-9.]*\) s;.*/\1 \2 \3/p' <<<"$out")
[ -n "${p12:-}" ] || { echo "kernels: no timings in the test's output" >&2; exit 1; }
what="Linux 6.1, tinyconfig + the lab's options, make -j$(nproc)"
r=$(ratio "$p1" "$full")
row "kernel build, $what: the next variant (patch 1, incremental) against the base's full build (s)" \
    "$p1" "$full" "$r" "<= 0.1" "$(le "$r" 0.1)"
r=$(ratio "$p12" "$full")
row "the same for patch 1+2 after patch 1 (s)" "$p12" "$full" "$r" "<= 0.1" "$(le "$r" 0.1)"
