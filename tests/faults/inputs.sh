#!/usr/bin/env bash
# Inputs that must not get in, on a real host: a parameter whose value is
# shell code reaches the command as one literal word in the safe form
# (README), and a stored job that cannot be planned fails alone: a job
# made to expand to 10^8 runs in the database (what a file accepted before
# the limit left there; submit refuses it now) fails at planning with the
# limit named, while the job queued beside it is measured, hilabd stays up
# and a restart does not trip on it again.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
eval "$(lab_host_up inputs)"
. "$HILAB_SRCDIR/tests/faults/lib.sh"

# hackbench NAME: a short hackbench job on "demo", queued; prints its id.
hackbench() {
	submit "$(demo_job "$1" <<YAML
benchmarks:
  - name: hackbench
    params: {groups: 1, loops: 100}
    iterations: 2
YAML
)"
}
output() { sql "SELECT CAST(rr.output AS TEXT) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $1"; }

echo "1..8"
pwned=$LAB_TMP/pwned
safe=$(submit "$(demo_job safe <<YAML
benchmarks:
  - name: safe
    command: [sh, -c, 'echo "word: \$1"; echo took 1 s', sh, "{v}"]
    params: {v: '\$(touch $pwned); \`touch $pwned\`'}
    parser: regex
    parser_args: "t[s]=took ([0-9.]+) s"
    metrics: [{name: t, unit: s, direction: lower}]
    iterations: 1
YAML
)")
huge=$(hackbench huge)
fine=$(hackbench fine)
sql "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000)
    UPDATE jobs SET spec = json_set(spec,
	'\$.benchmarks[0].params.groups', (SELECT json_group_array(CAST(i AS TEXT)) FROM n),
	'\$.benchmarks[0].params.loops', (SELECT json_group_array(CAST(i AS TEXT)) FROM n))
    WHERE id = $huge"
daemon_start
"$hilab" wait --timeout 120 "$safe" >/dev/null
check "a parameter of shell code, passed as a word: the job is done" \
    test "$(job_state "$safe")" = done
check "... the command saw it as one literal word" \
    grep -qF "word: \$(touch $pwned); \`touch $pwned\`" <<<"$(output "$safe")"
check "... and nothing ran it" test ! -e "$pwned"
"$hilab" wait --timeout 120 "$fine" >/dev/null
check "the stored job of 10^8 runs fails, naming the limit" \
    test "$(sql "SELECT state || '|' || error FROM jobs WHERE id = $huge")" = 'failed|job "huge": expands to 100000000 runs, the limit is 100000'
check "... with no run planned" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $huge")" = 0
check "the job beside it is measured: 2 samples" \
    test "$(job_state "$fine")/$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $fine")" = done/2
check "hilabd is still up" kill -0 "$daemon_pid"
daemon_stop TERM
daemon_start
check "... and starts again without tripping on it" \
    bash -c "'$hilab' status $huge >/dev/null && '$hilab' list >/dev/null && kill -0 $daemon_pid"
daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
