#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz with clang under ASan and
# UBSan (-Dfuzz=true) in BUILD_DIR, then runs each for SECONDS from a
# corpus kept in BUILD_DIR/corpus/NAME, seeded with the project's own files
# when empty: the job, machine and catalog files of examples/, benchmarks/
# and the unit tests, tests/fuzz/seeds/proto, and, for the parsers, the
# captures of ../shared/bench-outputs read here behind each parser's first
# byte (they stay out of the repository).  The inputs that once crashed
# (tests/fuzz/crashes/NAME) join each corpus too.  Prints each target's
# executions and corpus (libFuzzer's count of inputs and their size, and
# the files of its directory), then "N passed, N failed, N skipped".  A
# crash, a leak, an undefined behaviour, a timeout (10 s an input) or an
# input past 2 GiB fails the target; the input is kept as
# BUILD_DIR/crashes/NAME-*: minimize it (fuzz-NAME -minimize_crash=1
# -runs=10000 INPUT), put it in tests/fuzz/crashes/NAME/ and the unit suite
# replays it from then on.  A compiler warning fails the build.  Without
# clang the run is skipped (with CI=true it fails).
#
#	scripts/fuzz.sh [BUILD_DIR [SECONDS]]	# defaults: build-fuzz 10
set -u
cd "$(dirname "$0")/.."
build=${1:-build-fuzz}
secs=${2:-10}
targets=(proto parse job machine catalog)
passed=0 failed=0 skipped=0
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# Ends with the counts line .ci/run reads.
finish() {
	echo "$passed passed, $failed failed, $skipped skipped"
	exit $((failed > 0))
}

# Prints a failed step's block (.ci/total shows it) and counts it.
broken() {
	echo "--- failed: $1 ---"
	tail -n 30 "$2"
	echo "--- end ---"
	failed=$((failed + 1))
}

# copy PATTERN DIR...: copies the files of each DIR matching PATTERN into
# the corpus directory $dir, each named after its directory and itself.
copy() {
	local pattern=$1 d f

	shift
	for d in "$@"; do
		for f in "$d"/$pattern; do
			[ -f "$f" ] || continue
			cp "$f" "$dir/$(basename "$d")-$(basename "$f")"
		done
	done
}

# Writes each capture behind each first byte fuzz_parse.c picks a parser
# by (one per parser of benchmarks/parse.c, then json with paths).
seed_parse() {
	local n f i

	n=$(grep -o '{ "[a-z-]*", parse_[a-z]* }' benchmarks/parse.c | wc -l)
	for f in ../shared/bench-outputs/*/*.txt; do
		[ -f "$f" ] || continue
		for ((i = 0; i <= n; i++)); do
			{ printf "\\x$(printf %02x "$i")"; cat "$f"; } \
			    >"$dir/$i-$(basename "$(dirname "$f")")-$(basename "$f")"
		done
	done
}

# Seeds the corpus directory $dir of target $1 with the project's files.
seed() {
	case $1 in
	proto) copy '*' tests/fuzz/seeds/proto ;;
	parse) seed_parse ;;
	job) copy '*.yaml' examples/jobs tests/unit/jobs/data ;;
	machine)
		copy '*.yaml' examples/machines tests/unit/inventory/data \
		    tests/unit/jobs/data/inventory
		;;
	catalog) copy '*.yaml' benchmarks ;;
	esac
	if [ -d "tests/fuzz/crashes/$1" ]; then
		copy '*' "tests/fuzz/crashes/$1"
	fi
}

# Runs target $1 for $secs seconds; prints its executions and corpus.
run() {
	local name=$1 dir=$build/corpus/$1 log=$build/fuzz-$1.log
	local rc execs corp files dict=()

	mkdir -p "$dir" "$build/crashes"
	[ -n "$(ls -A "$dir")" ] || seed "$name"
	case $name in
	job | machine | catalog) dict=(-dict=tests/fuzz/yaml.dict) ;;
	esac
	"$build/tests/fuzz/fuzz-$name" -max_total_time="$secs" -timeout=10 \
	    -rss_limit_mb=2048 -print_final_stats=1 "${dict[@]}" \
	    -artifact_prefix="$build/crashes/$name-" "$dir" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	corp=$(grep -o 'corp: [0-9]*/[0-9]*[a-zA-Z]*' "$log" | tail -n 1)
	files=$(find "$dir" -type f | wc -l)
	if [ $rc = 0 ]; then
		echo "ok fuzz-$name: ${execs:-?} executions in $secs s," \
		    "corpus ${corp#corp: } (inputs/size), $files files"
		passed=$((passed + 1))
	else
		echo "--- failed: fuzz-$name (exit $rc) ---"
		grep -E 'ERROR|runtime error|SUMMARY|^ +#[0-9]+ ' "$log" |
		    grep -v 'fuzzer::\|libc_start\| _start ' | head -n 20
		grep -E '^Test unit written|^artifact_prefix' "$log"
		echo "--- end ---"
		failed=$((failed + 1))
	fi
}

if ! command -v clang >/dev/null; then
	echo "fuzz: clang missing (scripts/packages.txt: clang, libclang-rt-14-dev)"
	if [ "${CI:-}" = true ]; then failed=1; else skipped=1; fi
	finish
fi
if [ ! -f "$build/build.ninja" ]; then
	CC=clang meson setup "$build" -Dfuzz=true \
	    -Db_sanitize=address,undefined -Db_lundef=false \
	    >"$build.setup.log" 2>&1 ||
	    { broken "meson setup $build" "$build.setup.log"; finish; }
fi
meson compile -C "$build" -j 2 fuzz >"$build/compile.log" 2>&1 ||
    { broken "meson compile $build fuzz" "$build/compile.log"; finish; }
if grep -q 'warning:' "$build/compile.log"; then
	echo "--- failed: compiler warnings in $build ---"
	grep -A3 'warning:' "$build/compile.log" | head -n 30
	echo "--- end ---"
	failed=$((failed + 1))
fi
for t in "${targets[@]}"; do
	run "$t"
done
finish
