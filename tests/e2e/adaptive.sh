#!/usr/bin/env bash
# Adaptive iterations through hilabd on a lab host (sshd in a network
# namespace), in one job on the same host: a tight metric (a file's size)
# stops at min in one run, while a noisy one (two bytes of /dev/urandom)
# goes on in rounds until max and says it did not reach its precision;
# the numbers used and reached are stored and shown under the compare
# table.  Balance across kernels is in tests/results/test_adapt.c: a
# namespace host runs only its own kernel.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
eval "$(lab_host_up demo)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
daemon_lab_host demo
trap daemon_cleanup EXIT

cat >"$LAB_TMP/adaptive.yaml" <<'YAML'
name: adaptive
machines: [demo]
benchmarks:
  - name: tight
    command: [stat, -c, "size=%s", /etc/passwd]
    parser: keyvalue
    iterations: {min: 3, max: 12, precision: 1%}
    warmups: 0
    metrics: [{name: size, unit: B, direction: lower}]
  - name: noisy
    command: [sh, -c, 'echo value=$(od -An -N2 -tu2 /dev/urandom)']
    parser: keyvalue
    iterations: {min: 3, max: 12, precision: 1%}
    warmups: 0
    metrics: [{name: value, unit: x, direction: lower}]
YAML

# used BENCHMARK: "iterations:reached:done" of its adaptive row.
used() {
	sql "SELECT iterations || ':' || reached || ':' || done
	    FROM adaptive WHERE job = $j AND benchmark = '$1'"
}

# samples BENCHMARK METRIC: how many of its samples count.
samples() {
	sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run
	    WHERE r.job = $j AND r.benchmark = '$1' AND s.metric = '$2'
	    AND r.state = 'done'"
}

# runs BENCHMARK: "round:iterations" of its runs, in order.
runs() {
	sql "SELECT group_concat(round || ':' || iterations, ' ') FROM
	    (SELECT * FROM runs WHERE job = $j AND benchmark = '$1'
	    ORDER BY round, position)"
}

# events LEVEL PATTERN: how many events of the job match.
events() {
	sql "SELECT COUNT(*) FROM events WHERE job = $j AND level = '$1'
	    AND message LIKE '$2'"
}

echo "1..11"
daemon_start
j=$(submit "$LAB_TMP/adaptive.yaml")
"$hilab" wait --timeout 120 "$j" >/dev/null 2>&1
check "adaptive job $j done" \
    test "$(sql "SELECT state FROM jobs WHERE id = $j")" = "done"
tight=$(used tight)
noisy=$(used noisy)
echo "# tight: $tight ($(runs tight)); noisy: $noisy ($(runs noisy))"
check "the tight metric stops at min, within its target" \
    test "$tight" = "3:1:1"
check "in the job's one round" test "$(runs tight)" = "0:3"
check "the noisy metric goes on to max without reaching its target" \
    test "$noisy" = "12:0:1"
check "in rounds that add iterations, at most doubling" \
    test "$(runs noisy)" = "0:3 1:3 2:6"
check "on the same host the tight metric stopped earlier than the noisy one" \
    test "${tight%%:*}" -lt "${noisy%%:*}"
check "the iterations stored are the samples that count" \
    test "$(samples noisy value):$(samples tight size)" = "12:3"
check "each run's story tells its own iterations" \
    test "$(events info 'started: noisy (kernel "running"%, round 2): 6 iterations + 0 warmups')" = 1
check "the tight metric says it reached its target" \
    test "$(events info 'adaptive iterations of tight (size amean): running: 3 (±0.00%); target ±1% reached')" = 1
check "the noisy one says it did not" \
    test "$(events warn 'adaptive iterations of noisy (value amean): running: 12 (±%); target ±1% not reached within max')" = 1
"$hilab" compare --job "$j" --style pct >"$LAB_TMP/table.txt" 2>&1
sed 's/^/# /' "$LAB_TMP/table.txt"
check "the tables say how many iterations and what precision" \
    grep -q "note: adaptive iterations on value (amean, target ±1%): job $j: 12 (±[0-9.]*%, not reached)" "$LAB_TMP/table.txt"
daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
