#!/usr/bin/env bash
# Tables that cannot be silently wrong, on real runs: a lab host (sshd in a
# network namespace), the real agent, hilabd and SQLite.  Each table prints
# the unit and direction its own job declares (two benchmarks sharing a
# metric name keep theirs, in every style; sysbench and stress-ng through
# the catalog), a metric the job does not declare has no verdict, a
# declared metric a regex never finds fails the run naming it, and a
# selection that would pool jobs into one cell is refused unless --pool.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
for tool in sysbench stress-ng; do
	command -v "$tool" >/dev/null ||
	    lab_skip "$tool missing (apt-get install $tool)"
done
eval "$(lab_host_up demo)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
daemon_lab_host demo
trap daemon_cleanup EXIT

# run_job FILE: submits the job, waits for its end, prints its id.
run_job() {
	local j

	j=$(submit "$1")
	"$hilab" wait --timeout 180 "$j" >/dev/null 2>&1
	echo "$j"
}

# state JOB: the job's state.
state() {
	sql "SELECT state FROM jobs WHERE id = $1"
}

# printed CSV: "benchmark,metric,unit,better" of every table row, sorted.
printed() {
	grep -v '^#' "$1" | grep -v '^benchmark,' | grep -v '^$' |
	    cut -d, -f1-4 | sort -u
}

# declared JOB: "benchmark,metric,unit,direction" of every metric the
# stored job declares by name, sorted.
declared() {
	sql "SELECT benchmark || ',' || name || ',' || unit || ',' ||
	    direction FROM v_declared WHERE job = $1" | sort
}

# value_job NAME BENCHMARK VALUE UNIT DIRECTION: a custom benchmark that
# prints "value VALUE" three times, its metric "value" declared so.
value_job() {
	cat >"$LAB_TMP/$1.yaml" <<YAML
name: $1
machines: [demo]
benchmarks:
  - name: $2
    command: [echo, value, "$3"]
    parser: regex
    parser_args: "value=value ([0-9.]+)"
    iterations: 3
    warmups: 0
    metrics: [{name: value, unit: $4, direction: $5}]
YAML
}

echo "1..28"
daemon_start

# Two benchmarks, one metric name, opposite meanings: each table keeps its
# own in every style, whichever job came last.
value_job lat latency 5 ms lower
value_job ops throughput 9 ops/s higher
a=$(run_job "$LAB_TMP/lat.yaml")
b=$(run_job "$LAB_TMP/ops.yaml")
check "jobs $a and $b done" test "$(state "$a") $(state "$b")" = "done done"
for style in amd change pct meansd markdown csv json; do
	"$hilab" compare --job "$a" --style "$style" >"$LAB_TMP/a.$style"
done
check "amd: the older job is still lower is better" \
    grep -q '^Interpretation: Lower is better$' "$LAB_TMP/a.amd"
for style in change pct meansd markdown; do
	check "$style: its title says value (ms), lower is better" \
	    grep -q '^\(### \)\?latency: value (ms), lower is better, AMean$' \
	    "$LAB_TMP/a.$style"
done
check "csv: lower, in ms" grep -q '^latency,value,ms,lower,AMean,' "$LAB_TMP/a.csv"
check "json: lower, in ms" \
    bash -c "grep -q '\"better\": \"lower\"' '$LAB_TMP/a.json' && grep -q '\"unit\": \"ms\"' '$LAB_TMP/a.json'"
"$hilab" compare --job "$b" --style pct >"$LAB_TMP/b.pct"
check "the newer job's table is higher is better in ops/s" \
    grep -q '^throughput: value (ops/s), higher is better, AMean$' "$LAB_TMP/b.pct"

# The same benchmark and metric declared two ways cannot share a table.
value_job lat2 latency 5 ms higher
c=$(run_job "$LAB_TMP/lat2.yaml")
"$hilab" compare --job "$a" --job "$c" >/dev/null 2>"$LAB_TMP/conflict.err"
check "jobs declaring one metric differently are refused (exit 2)" test $? = 2
check "the refusal names the metric and both meanings" \
    grep -q "latency value: the jobs declare it differently (lower is better, unit \"ms\", amean; job $c: higher is better" "$LAB_TMP/conflict.err"

# Two jobs of the same kernel pooled into one kernel column.
a2=$(run_job "$LAB_TMP/lat.yaml")
"$hilab" compare --job "$a" --job "$a2" --by kernel >/dev/null 2>"$LAB_TMP/pool.err"
check "pooling two jobs into a kernel column is refused (exit 2)" test $? = 2
check "the refusal names the jobs" \
    grep -q "column \"running\" would pool the samples of jobs \"job $a\", \"job $a2\" into one cell" "$LAB_TMP/pool.err"
"$hilab" compare --job "$a" --job "$a2" --by kernel --pool --style pct >"$LAB_TMP/pooled.pct"
check "with --pool the table holds both and says so" \
    bash -c "grep -q 'n=6 per cell' '$LAB_TMP/pooled.pct' && grep -q 'note: pooled (--pool): column \"running\" holds the samples of jobs \"job $a\", \"job $a2\"' '$LAB_TMP/pooled.pct'"

# A p-value far below 0.001 is printed as such, not as 0.0000.
value_job lat3 latency 6 ms lower
a3=$(run_job "$LAB_TMP/lat3.yaml")
"$hilab" compare --job "$a" --job "$a3" --by job --style markdown >"$LAB_TMP/p.md"
check "markdown prints p<0.001 for a p of 0" \
    bash -c "grep -q '(imp -20.00%) p<0.001 \*' '$LAB_TMP/p.md' && ! grep -q 'p=0.0000' '$LAB_TMP/p.md'"

# The base: the first --job given, or --base; a missing job is an error.
"$hilab" compare --job "$a2" --job "$a" --by job --style pct >"$LAB_TMP/order.pct"
check "the first --job is the base column" \
    grep -q "^Case *job $a2 *job $a *pct" "$LAB_TMP/order.pct"
"$hilab" compare --job "$a2" --job "$a" --by job --base "job $a" --style pct >"$LAB_TMP/base.pct"
check "--base puts the named column first" \
    grep -q "^Case *job $a *job $a2 *pct" "$LAB_TMP/base.pct"
"$hilab" compare --job "$a" --job "$a2" --by job --base nosuch >/dev/null 2>"$LAB_TMP/nobase.err"
check "an unknown --base is refused (exit 2) naming the columns" \
    bash -c "[ $? = 2 ] && grep -q '\"nosuch\".*its columns: \"job $a\", \"job $a2\"' '$LAB_TMP/nobase.err'"
"$hilab" compare --job "$a" --job 999 >/dev/null 2>"$LAB_TMP/missing.err"
check "a missing job is an error naming it (exit 2)" \
    bash -c "[ $? = 2 ] && grep -q -- '--job 999: no such job' '$LAB_TMP/missing.err'"

# Sysbench and stress-ng through the catalog: every printed metric has the
# unit and direction its job declares; one sysbench metric undeclared in a
# custom job has no verdict.
cat >"$LAB_TMP/bench.yaml" <<YAML
name: catalog-tables
machines: [demo]
benchmarks:
  - name: sysbench-cpu
    params: {threads: 1, time: 1}
    iterations: 2
    warmups: 0
  - name: stress-ng-cpu
    params: {workers: 1, time: 1}
    iterations: 2
    warmups: 0
  - name: sysbench-bare
    command: [sysbench, cpu, --time=1, run]
    parser: sysbench
    iterations: 2
    warmups: 0
    metrics: [{name: events_per_second, unit: events/s, direction: higher}]
YAML
j=$(run_job "$LAB_TMP/bench.yaml")
check "sysbench and stress-ng job $j done" test "$(state "$j")" = done
"$hilab" compare --job "$j" --benchmark sysbench-cpu --style csv >"$LAB_TMP/sb.csv"
"$hilab" compare --job "$j" --benchmark stress-ng-cpu --style csv >"$LAB_TMP/sn.csv"
cat "$LAB_TMP/sb.csv" "$LAB_TMP/sn.csv" >"$LAB_TMP/catalog.csv"
printed "$LAB_TMP/catalog.csv" >"$LAB_TMP/printed"
declared "$j" >"$LAB_TMP/declared"
check "every printed catalog metric has its declared unit and direction" \
    bash -c "test -s '$LAB_TMP/printed' && ! comm -23 '$LAB_TMP/printed' '$LAB_TMP/declared' | grep -q ."
check "no catalog metric is printed with an unknown direction" \
    bash -c "! grep -q ',unknown,' '$LAB_TMP/catalog.csv'"
check "sysbench events_per_second printed as higher is better" \
    grep -q '^sysbench-cpu,events_per_second,events/s,higher$' "$LAB_TMP/printed"
"$hilab" compare --job "$j" --benchmark sysbench-bare --metric latency_avg >"$LAB_TMP/bare.amd"
check "an undeclared metric is stored and shown with no direction" \
    bash -c "grep -q '^Interpretation: Unknown: the job does not declare a direction' '$LAB_TMP/bare.amd' && grep -q '\[   n/a\]' '$LAB_TMP/bare.amd'"

# A declared metric the regex never finds fails the run, naming it.
cat >"$LAB_TMP/never.yaml" <<YAML
name: never-matches
machines: [demo]
benchmarks:
  - name: took
    command: [echo, took, "1.5", s]
    parser: regex
    parser_args: |
      ok[s]=took ([0-9.]+) s
      t[s]=took ([0-9.]+)s
    iterations: 2
    warmups: 0
    metrics:
      - {name: ok, unit: s, direction: lower, statistic: median}
      - {name: t, unit: s, direction: lower, statistic: median}
YAML
m=$(run_job "$LAB_TMP/never.yaml")
check "the job whose regex never matches failed" test "$(state "$m")" = failed
check "its run's error names the metric and the parser" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $m AND state = 'failed' AND error LIKE '%declared metric \"t\": parser \"regex\"%'")" = 1
check "an event of the job says so" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE job = $m AND message LIKE '%declared metric \"t\"%'")" -ge 1

# Without --job: the newest done job, said on stderr (not the failed one).
"$hilab" compare --style pct >/dev/null 2>"$LAB_TMP/latest.err"
check "compare without --job uses the newest done job and says which" \
    grep -q "compare: job $j, the newest done job with samples" "$LAB_TMP/latest.err"

daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
