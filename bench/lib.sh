# shellcheck shell=bash
# Shared by bench/run's parts: medians and the rows of its table.
#
#	. "$HILAB_SRCDIR/bench/lib.sh"
#	row "what" "$hilab" "$plain" "$ratio" "<= 1.02" "$(le "$ratio" 1.02)"

# median: the median of the numbers on stdin (one a line).
median() {
	sort -g | awk '{ v[NR] = $1 }
	    END { if (NR == 0) print "nan"
		  else print ((NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

# ratio A B: A / B to 3 decimals; "-" when B is 0 (no ratio to give).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0) printf "%.3f\n", a / b; else print "-" }'; }

# le A B / ge A B: "yes" when A <= B (A >= B), else "no"; "no" when A is
# "-" (a ratio that could not be taken).
le() { awk -v a="$1" -v b="$2" 'BEGIN { print ((a != "-" && a + 0 <= b + 0) ? "yes" : "no") }'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { print ((a != "-" && a + 0 >= b + 0) ? "yes" : "no") }'; }

# row FIGURE HILAB PLAIN RATIO GOAL MET: one row of bench/run's table
# (tab-separated) on stdout; "-" where a column does not apply.
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@"; }

# bench_lab_host: a namespace host "bench" (its variables: HOST, NETNS,
# ...), hilabd's database, socket, log and inventory of it in $T, torn
# down at exit (tests/integration/lib.sh, tests/lib/hilabd.sh).
bench_lab_host() {
	. "$HILAB_SRCDIR/tests/integration/lib.sh"
	lab_init
	eval "$(lab_host_up bench)"
	. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
	daemon_lab_host bench
	trap daemon_cleanup EXIT
	T=$LAB_TMP
}

# now_ms: the wall clock in ms (the database's clock).
now_ms() { date +%s%3N; }
