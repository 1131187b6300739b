#!/usr/bin/env bash
# A comparison over many samples (bench/run's query part): the database
# results-mkdb builds through hilabd's own path, its job 1's hackbench
# groups=1 runs (two kernels x five rounds) filled up to SAMPLES samples
# of "time" in all; `hilab compare` of that table against a raw SQL
# aggregate of the same samples (count, mean, sd per kernel) and against
# one that also takes the median, in turn, 3 rounds, the best of each;
# the peak RSS of that run.  Rows on stdout.
#
#	bench/query.sh SAMPLES BUILD_DIR
set -u
samples=${1:?samples} build=${2:?build dir}
export HILAB_SRCDIR=${HILAB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$HILAB_SRCDIR/bench/lib.sh"
T=$(mktemp -d /tmp/hilab-query.XXXXXX) || exit 1
trap 'rm -rf "$T"' EXIT
"$build/agents/hilab-agent" facts >"$T/facts.txt" &&
    HILAB_SRCDIR=$HILAB_SRCDIR "$build/tests/results/results-mkdb" "$T/h.db" "$T/facts.txt" >/dev/null || exit 1
runs="SELECT id FROM runs WHERE job = 1 AND benchmark = 'hackbench' AND params LIKE 'groups=1,%' AND state = 'done'"
nruns=$(sqlite3 "$T/h.db" "SELECT count(*) FROM ($runs)")
have=$(sqlite3 "$T/h.db" "SELECT count(*) FROM samples WHERE metric = 'time' AND run IN ($runs)")
per=$(( (samples - have) / nruns ))
sqlite3 "$T/h.db" "
WITH RECURSIVE i(n) AS (SELECT 1000 UNION ALL SELECT n + 1 FROM i WHERE n < 1000 + $per - 1)
INSERT INTO samples (run, metric, iteration, repeat, value)
    SELECT r.id, 'time', i.n, 0, 2.0 + (abs(random()) % 1000) / 4000.0 FROM ($runs) r, i;" || exit 1
total=$(sqlite3 "$T/h.db" "SELECT count(*) FROM samples WHERE metric = 'time' AND run IN ($runs)")
mean_sd="SELECT r.kernel, count(*), avg(s.value), sqrt((sum(s.value * s.value) - sum(s.value) * sum(s.value) / count(*)) / (count(*) - 1))
    FROM samples s JOIN runs r ON r.id = s.run WHERE r.id IN ($runs) AND s.metric = 'time' GROUP BY r.kernel"
# the median too: every value of a kernel in order, the middle one.
median_sql="WITH v AS (SELECT r.kernel k, s.value x, row_number() OVER (PARTITION BY r.kernel ORDER BY s.value) i,
    count(*) OVER (PARTITION BY r.kernel) n FROM samples s JOIN runs r ON r.id = s.run WHERE r.id IN ($runs) AND s.metric = 'time')
    SELECT k, avg(x) FROM v WHERE i IN ((n + 1) / 2, (n + 2) / 2) GROUP BY k"

# timed NAME COMMAND...: "NAME ms MB" of one run of COMMAND, its wall
# time and peak RSS (/usr/bin/time).
timed() {
	local name=$1 t0 r

	shift
	t0=$(date +%s%N)
	r=$(/usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1)
	echo "$name $((($(date +%s%N) - t0) / 1000000)) $((r / 1024))"
}

# best NAME: "ms MB" of NAME's fastest run.
best() { awk -v n="$1" '$1 == n { print $2, $3 }' "$T/times" | sort -n | head -1; }

HILAB_DB=$T/h.db "$build/cli/hilab" compare --job 1 --benchmark hackbench --metric time >"$T/compare.txt" ||
    { echo "query: hilab compare failed" >&2; exit 1; }
for _ in 1 2 3; do
	timed compare env HILAB_DB="$T/h.db" "$build/cli/hilab" compare --job 1 --benchmark hackbench --metric time
	timed mean_sd sqlite3 "$T/h.db" "$mean_sd"
	timed median sqlite3 "$T/h.db" "$mean_sd; $median_sql"
done >"$T/times"
read -r ch cm < <(best compare)
read -r sh sm < <(best mean_sd)
read -r mh mm < <(best median)
what="$total samples in 2 cells"
r=$(ratio "$ch" "$sh")
row "\`hilab compare\` of $what against a raw SQL count, mean and sd per kernel (ms; peak RSS $cm MB against $sm MB)" \
    "$ch" "$sh" "$r" "<= 1.2" "$(le "$r" 1.2)"
r=$(ratio "$ch" "$mh")
row "the same against a raw SQL that also takes the median (ms; $mm MB)" "$ch" "$mh" "$r" "-" "-"
