#!/usr/bin/env bash
# hilab compare, report, plot and query on a database built through the db
# API and the controller's ingest code (results-mkdb): STATS.md vectors,
# hackbench run here for real, facts captured from the real agent.
# Usage: results.sh RESULTS-MKDB   (TAP)
set -u
mkdb=$1
B=$HILAB_BUILDDIR
S=$HILAB_SRCDIR
hilab=$B/cli/hilab
golden=$S/tests/results/golden
. "$S/tests/lib/skip.sh"
command -v hackbench >/dev/null || skip_missing_tap "hackbench not installed (rt-tests)"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() {	# check DESCRIPTION COMMAND...
	local d=$1; shift
	if "$@"; then ok "$d"; else not_ok "$d"; fi
}
h() { "$hilab" --db "$T/h.db" "$@"; }
fact() { sed -n "s/^$1=//p" "$T/facts.txt"; }
# same GOLDEN FILE: identical, else the diff goes to the log (with
# HILAB_UPDATE_GOLDEN set, FILE first becomes the golden).
same() { [ -z "${HILAB_UPDATE_GOLDEN:-}" ] || cp "$2" "$1"; diff -u "$1" "$2" | sed 's/^/# /'; cmp -s "$1" "$2"; }

"$B/agents/hilab-agent" facts >"$T/facts.txt"
check "facts captured from the real agent" test -s "$T/facts.txt"
check "database built through the ingest path" \
    "$mkdb" "$T/h.db" "$T/facts.txt"

# compare: the STATS.md V1 cells in the amd style.
h compare --job 1 >"$T/compare1.txt"
check "compare shows V1 base cell" grep -q '^1-groups  1.00 \[ -0.00\]( 3.76)   0.94 \[  5.90\]( 2.83)\*$' "$T/compare1.txt"
check "compare shows V2 pct imp +3.80" grep -q '1.04 \[  3.80\]( 1.00)\*$' "$T/compare1.txt"

# report and compare show the same tables in every style, per-boot tests
# and environment notes included.
for style in amd change pct meansd markdown; do
	h report 1 --style "$style" >"$T/report-$style.txt"
	h compare --job 1 --style "$style" >"$T/compare-$style.txt"
	sed -n '/^Results (columns: kernels)$/,/^Notes$/p' \
	    "$T/report-$style.txt" | sed '1,2d;$d' | sed '$d' \
	    >"$T/tables-$style.txt"
	check "report $style tables equal compare $style" \
	    same "$T/compare-$style.txt" "$T/tables-$style.txt"
done

# Golden files: header and everything from Results on (the machine,
# kernel and environment blocks depend on the host and are checked below).
for style in amd pct; do
	{ sed -n 1p "$T/report-$style.txt"; sed -n '/^Results/,$p' "$T/report-$style.txt"; } >"$T/golden-$style.txt"
	check "report --style $style matches golden" \
	    same "$golden/report-vectors-$style.txt" "$T/golden-$style.txt"
done

r=$T/report-amd.txt
check "report has no tab" bash -c "! grep -q \$'\\t' '$r'"
# The job file under Reproduce is quoted verbatim, long lines and all.
check "machine, kernel, environment and notes fit 80 columns" bash -c \
    "sed -e '/^Results/,/^Notes/d' -e '/^Reproduce/,\$d' '$r' | awk 'length > 80 { bad = 1 } END { exit bad }'"
check "machine block names the CPU model" grep -qF "  lab1: $(fact cpu.model) ($(fact arch))" "$r"
check "machine block has the topology" grep -qF "topology: $(fact topo.sockets) socket" "$r"
check "machine block has NUMA and LLC groups" bash -c \
    "grep -qF 'NUMA: $(fact numa.nodes) node' '$r' && grep -qF 'LLC groups: ' '$r'"
check "kernels block has the release from the facts" \
    grep -qF "    release: $(fact kernel.release)" "$r"
check "kernels block has the asked cmdline" grep -qF "    cmdline: isolcpus=1" "$r"
check "kernels block has the image" grep -qF "    source: image /srv/kernels/patch1/vmlinuz" "$r"
check "environment block appears once" grep -qF "Environment (the same on every machine and kernel)" "$r"
check "environment shows the host's THP" grep -qF "  THP: $(fact thp.enabled)" "$r"
check "report reproduces with hilab submit" grep -qF "  hilab submit job.yaml" "$r"

# The reproduced job file is itself a valid job: check it with hilab jobs.
sed -n '/^  where job.yaml is:$/,$p' "$r" | sed '1,2d; s/^    //' >"$T/job.yaml"
mkdir "$T/machines"
printf 'name: lab1\nkind: ssh\nssh:\n  host: 127.0.0.1\n  identity: /nonexistent/key\n  known_hosts: /nonexistent/known_hosts\nboot:\n  method: kexec\n  known_good: 6.1.0-57-amd64\n' >"$T/machines/lab1.yaml"
"$hilab" --machines "$T/machines" --catalog "$S/benchmarks" jobs check \
    "$T/job.yaml" >"$T/job-check.txt"
check "reproduced job file passes hilab jobs check" test $? -eq 0
check "reproduced job file is already normalized" \
    same "$T/job.yaml" "$T/job-check.txt"

# Environment mismatch: job 3's patch 1 ran with another governor.
h report 3 >"$T/report3.txt"
gov=$(fact cpufreq.governor)
want=$(if [ -n "$gov" ]; then echo "\"$gov\""; else echo absent; fi)
other=powersave; [ "$gov" = powersave ] && other=performance
check "report notes the governor mismatch" grep -qF \
    "note: environment differs: cpufreq.governor is $want for base, \"$other\" for patch 1" "$T/report3.txt"
check "no mismatch note for identical runs" bash -c "! grep -q 'environment differs' '$r'"

# Real hackbench (job 2): the report's means are those of the samples.
h report 2 --style meansd >"$T/report2.txt"
h query --format csv "SELECT replace(params, ',', ' ') AS p, printf('%.9f', avg(value)) AS m FROM v_samples WHERE job = 2 AND metric = 'time' GROUP BY params ORDER BY params" | tr -d '\r' | tail -n +2 >"$T/means2.csv"
check "real hackbench job has 2 parameter rows" test "$(wc -l <"$T/means2.csv")" -eq 2
# within_half_digit SHOWN MEAN: SHOWN is MEAN rounded to its decimals.
within_half_digit() {
	awk -v a="$1" -v b="$2" 'BEGIN { d = a; sub(/^[^.]*\.?/, "", d);
	    exit !(a != "" && (a - b < 0 ? b - a : a - b) <= 0.5 * 10 ^ -length(d) + 1e-12) }'
}
while IFS=, read -r params mean; do
	g=$(echo "$params" | sed 's/.*groups=\([0-9]*\).*/\1/')
	shown=$(sed -n "s/^| *$g-groups | \([0-9.]*\) ± .*/\1/p" "$T/report2.txt")
	check "report mean of $g-groups ($shown) is the samples' mean $mean" \
	    within_half_digit "$shown" "$mean"
done <"$T/means2.csv"

# plot: one file per benchmark metric, SVG and PNG.
h plot 1 --format svg --output "$T/plots" >"$T/plot.out"
check "plot writes one SVG per metric" test "$(wc -l <"$T/plot.out")" -eq 2
check "SVG has title and axis labels" grep -qF '<desc>x: groups; y: time (s); series: base, patch 1</desc>' "$T/plots/hackbench-time.svg"
check "SVG tbench title says higher is better" grep -qF '<title>tbench: throughput (AMean, higher is better)</title>' "$T/plots/tbench-throughput.svg"
h plot 2 --output "$T/plots" --benchmark hackbench >"$T/plot2.out"
png=$(cat "$T/plot2.out")
check "plot writes a PNG of 800x500" test "$(od -An -tx1 -j12 -N12 "$png" | tr -d ' \n')" = "4948445200000320000001f4"

# Meaning from each job: hackbench time (lower, s), job 4's custom "time"
# (higher, runs/s, Median) and its undeclared "extra", tbench throughput
# (MB/s) and netperf's (Mbit/s), in every style, each as its job says.
for style in amd change pct meansd markdown csv json; do
	h compare --job 1 --job 4 --job 5 --style "$style" >"$T/meaning.$style"
	check "compare --style $style of jobs sharing metric names matches golden" \
	    same "$golden/meaning.$style" "$T/meaning.$style"
done
check "csv: hackbench time lower in s, rate time higher in runs/s" bash -c \
    "grep -q '^hackbench,time,s,lower,AMean,' '$T/meaning.csv' && grep -q '^rate,time,runs/s,higher,Median,' '$T/meaning.csv'"
check "csv: tbench throughput in MB/s, netperf throughput in Mbit/s" bash -c \
    "grep -q '^tbench,throughput,MB/s,higher,' '$T/meaning.csv' && grep -q '^netperf,throughput,Mbit/s,higher,' '$T/meaning.csv'"
check "csv: the undeclared metric has no direction and no pct imp" \
    grep -qE '^rate,extra,,unknown,AMean,default,patch 1,5,19.76,([^,]*,){10},Welch' "$T/meaning.csv"
check "amd: the undeclared metric says so and claims no improvement" bash -c \
    "grep -q '^Interpretation: Unknown: the job does not declare a direction$' '$T/meaning.amd' && grep -q '^default  1.00 \[   n/a\]' '$T/meaning.amd'"
check "meansd says which statistic its cells show" \
    grep -q '^signs: cells are Median ± sd; delta% is the raw change of the Median' "$T/meaning.meansd"
check "every style but json has a sign legend under every table" bash -c \
    "for f in '$T'/meaning.[acmp]*; do test \"\$(grep -c 'signs: ' \"\$f\")\" = \"\$(grep -c 'per cell' \"\$f\")\" || exit 1; done"

# Machines: kernel columns of two machines give a table per machine;
# --pool puts them in one cell and says so.
h compare --job 6 --style pct >"$T/split.pct"
check "kernel columns over two machines: a table per machine" bash -c \
    "test \"\$(grep -c '^hackbench: time (s), lower is better, AMean, machine lab[12]$' '$T/split.pct')\" = 2"
h compare --job 6 --pool --style markdown >"$T/pooled.markdown"
check "--pool: the table matches golden" same "$golden/pooled.markdown" "$T/pooled.markdown"
check "--pool: the table says what it pooled" grep -qF 'note: pooled (--pool): column "patch 1" holds the samples of machines "lab1", "lab2"' "$T/pooled.markdown"
check "markdown prints a small p as p<0.001" grep -qF 'p<0.001 *' "$T/pooled.markdown"
h compare --job 6 --by machine >"$T/pool.out" 2>"$T/pool.err"; rc=$?
check "machine columns that would pool kernels: refused (exit 2)" test "$rc" -eq 2
check "the refusal names the kernels" grep -qF 'column "lab1" would pool the samples of kernels "base", "patch 1" into one cell' "$T/pool.err"
check "nothing printed on stdout when refused" test ! -s "$T/pool.out"
h compare --job 1 --job 3 --benchmark hackbench 2>"$T/pool.err"; rc=$?
check "jobs pooled into one cell: refused naming them (exit 2)" bash -c \
    "test $rc -eq 2 && grep -qF 'would pool the samples of jobs \"job 1\", \"job 3\"' '$T/pool.err'"

# The base: the first --job's first kernel, or --base; a missing job.
h compare --job 7 --job 2 --by job --style csv >"$T/base.csv"
h compare --job 2 --job 7 --by job --style csv >"$T/base2.csv"
check "the job given first is the base: job 7" \
    bash -c "sed -n 2p '$T/base.csv' | grep -q ',job 7,'"
check "the job given first is the base: job 2" \
    bash -c "sed -n 2p '$T/base2.csv' | grep -q ',job 2,'"
h compare --job 1 --base "patch 1" --benchmark tbench --style change >"$T/base.change"
check "--base chooses the base column" grep -q '^Case  *patch 1 (MB/s) base (MB/s)' "$T/base.change"
h compare --job 1 --base nope 2>"$T/base.err"; rc=$?
check "--base naming no column: exit 2 naming it" bash -c \
    "test $rc -eq 2 && grep -qF -- '--base \"nope\": hackbench time has no such column' '$T/base.err'"
h compare --job 1 --job 999 >"$T/missing.out" 2>"$T/missing.err"; rc=$?
check "a missing job: exit 2 naming it" bash -c \
    "test $rc -eq 2 && grep -qF -- '--job 999: no such job' '$T/missing.err' && test ! -s '$T/missing.out'"
h compare --pool --style csv >"$T/latest.csv" 2>"$T/latest.err"
check "without --job: the newest done job (not the failed one), said on stderr" \
    grep -qF 'compare: job 6, the newest done job' "$T/latest.err"
check "without --job: stdout stays csv" bash -c \
    "head -1 '$T/latest.csv' | grep -q '^benchmark,metric,' && ! grep -q 'newest' '$T/latest.csv'"

# query: formats, read-only, exported copy.
h query --format csv "SELECT 'a,b' AS x, 'say \"hi\"' AS y, 'l1' || char(10) || 'l2' AS z, NULL AS n" >"$T/q.csv"
printf 'x,y,z,n\r\n"a,b","say ""hi""","l1\nl2",\r\n' >"$T/q.want"
check "query csv quotes as RFC 4180" same "$T/q.want" "$T/q.csv"
h query --format json "SELECT COUNT(*) AS n FROM v_samples WHERE job = 1" >"$T/q.json"
check "query json has typed values" grep -qE '"n": 30$' "$T/q.json"
h query "SELECT id, name FROM jobs ORDER BY id" >"$T/q.txt"
printf 'id  name          \n--  --------------\n 1  vectors       \n 2  hackbench-real\n 3  envdiff       \n 4  rate          \n 5  netperf       \n 6  two-machines  \n 7  failed        \n' | sed 's/ *$//' >"$T/q.want"
sed 's/ *$//' "$T/q.txt" >"$T/q.got"
check "query text is aligned" same "$T/q.want" "$T/q.got"
before=$(h query --format csv "SELECT COUNT(*) FROM jobs")
h query "DELETE FROM jobs" 2>"$T/err"; rc=$?
check "query refuses a write (exit 2)" test "$rc" -eq 2
check "query says why" grep -qF 'would write to the database; hilab query only reads' "$T/err"
check "the write did not happen" test "$(h query --format csv "SELECT COUNT(*) FROM jobs")" = "$before"
h query "SELECT 1; DROP TABLE jobs" 2>/dev/null
check "query refuses a second statement" test $? -eq 2
h query "PRAGMA user_version = 99" 2>/dev/null
check "query refuses a writing pragma" test $? -eq 2

h export "$T/copy.db" >/dev/null
chmod 0444 "$T/copy.db"
"$hilab" --db "$T/copy.db" query --format csv "SELECT COUNT(*) FROM v_samples" >"$T/c1"
h query --format csv "SELECT COUNT(*) FROM v_samples" >"$T/c0"
check "query works on an exported read-only copy" same "$T/c0" "$T/c1"
"$hilab" --db "$T/copy.db" report 1 >"$T/copy-report.txt"
check "report of the copy equals the original's" same "$r" "$T/copy-report.txt"

echo "1..$n"
[ "$failed" -eq 0 ]
