#!/usr/bin/env bash
# Runs the C programs of the unit suite under valgrind's memcheck: every
# unit test that is an executable of BUILD_DIR (the shell-script tests are
# left out: memcheck would check bash), with the programs of the build they
# start checked too.  An invalid read or write, a use of uninitialised
# memory, a bad free or a definite or indirect leak fails the test.
# BUILD_DIR is set up when it has no build yet: gcc, no sanitizer
# (memcheck and ASan do not mix; a sanitized BUILD_DIR is refused).  Ends
# with "N passed, N failed, N skipped".
#
# Not traced: system programs (/usr, /bin, /sbin), and the agent
# (hilab-agent): it is linked statically, and memcheck cannot replace a
# static malloc; its code is checked where the unit tests link it in.
# scripts/valgrind.supp names the libraries' memory kept by design.
# Left out or run apart:
#   proto   left out: its large-frame case writes 4 MiB under a SIGALRM
#           every millisecond (without SA_RESTART), and under memcheck each
#           signal takes longer than that: the writer never gets through.
#           The cases before it show no error (scripts/valgrind.sh
#           BUILD_DIR proto, until its timeout); the decoder is checked
#           under memcheck by fuzz-replay-proto.
#   render  run apart, writing its goldens into a scratch copy instead of
#           comparing them: memcheck computes x87 long double in 64 bits,
#           so the last of the 15 digits of a few p-values differ.
#
#	scripts/valgrind.sh [BUILD_DIR [TEST...]]	# default: build-valgrind, all
set -u
cd "$(dirname "$0")/.."
build=${1:-build-valgrind}
shift $(($# > 0))
left_out=(proto render)

# Prints the counts with one failure and stops.
broken() {
	echo "--- failed: $1 ---"
	echo "--- end ---"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
}

if ! command -v valgrind >/dev/null; then
	echo "valgrind missing (scripts/packages.txt)"
	[ "${CI:-}" = true ] && broken "valgrind is needed in CI"
	echo "0 passed, 0 failed, 1 skipped"
	exit 0
fi
if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" >"$build.setup.log" 2>&1 ||
	    broken "meson setup $build: $build.setup.log"
fi
meson introspect "$build" --buildoptions | python3 -c '
import json, sys
o = {x["name"]: x["value"] for x in json.load(sys.stdin)}
sys.exit(o["b_sanitize"] != "none")' ||
    broken "$build is built with a sanitizer: memcheck needs a plain build"
meson compile -C "$build" >"$build/valgrind-build.log" 2>&1 ||
    broken "meson compile $build: $build/valgrind-build.log"
mapfile -t names < <(meson introspect "$build" --tests |
    python3 -c '
import json, sys
out = sys.argv[1:]
for t in json.load(sys.stdin):
    if "unit" not in [s.split(":")[-1] for s in t["suite"]] or t["name"] in out:
        continue
    with open(t["cmd"][0], "rb") as f:
        if f.read(4) == b"\x7fELF":
            print(t["name"])
' "${left_out[@]}")
apart=1
if [ $# -gt 0 ]; then
	names=("$@")
	apart=0
fi
[ ${#names[@]} -gt 0 ] || broken "no unit tests in $build"
wrap="valgrind --quiet --error-exitcode=99 --leak-check=full"
wrap="$wrap --errors-for-leak-kinds=definite,indirect"
wrap="$wrap --show-leak-kinds=definite,indirect --track-origins=yes"
wrap="$wrap --suppressions=$(pwd)/scripts/valgrind.supp"
wrap="$wrap --trace-children=yes"
wrap="$wrap --trace-children-skip=/usr/*,/bin/*,/sbin/*,*/hilab-agent"
meson test -C "$build" --no-rebuild --timeout-multiplier 10 \
    --num-processes 2 --wrap "$wrap" "${names[@]}" \
    >"$build/valgrind.log" 2>&1
grep -E '^ *[0-9]+/[0-9]+ ' "$build/valgrind.log"
counts=$(.ci/count "$build/meson-logs/testlog-valgrind.json")
printf '%s\n' "$counts" | sed '$d'
set -- $(printf '%s\n' "$counts" | tail -n 1)
passed=$1 failed=$3 skipped=$5
if [ $apart = 1 ]; then
	scratch=$(mktemp -d)
	mkdir -p "$scratch/tests/unit/stats"
	cp -r tests/unit/stats/golden "$scratch/tests/unit/stats/"
	if HILAB_SRCDIR=$scratch HILAB_UPDATE_GOLDEN=1 $wrap \
	    "$build/tests/unit/stats/test-render" >"$build/valgrind-render.log" 2>&1; then
		echo "render OK (apart: goldens written, not compared)"
		passed=$((passed + 1))
	else
		echo "--- failed: render (apart) ---"
		tail -n 30 "$build/valgrind-render.log"
		echo "--- end ---"
		failed=$((failed + 1))
	fi
	rm -rf "$scratch"
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
