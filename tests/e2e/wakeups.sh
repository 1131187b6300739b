#!/usr/bin/env bash
# hilabd wakes what has work and nothing else, on two lab hosts (sshd in
# network namespaces): a job on one of them leases that machine and never
# the other, which has only a done run of a job of long ago (a trigger
# counts the leases); the job ends as done with `hilab wait`.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
eval "$(lab_host_up a A_)"
eval "$(lab_host_up b)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
daemon_lab_host b
machine_yaml a A_
trap daemon_cleanup EXIT
T=$LAB_TMP

cat >"$T/nap.yaml" <<'YAML'
name: nap
machines: [a]
benchmarks:
  - name: nap
    command: [sh, -c, 'sleep 0.1; echo t=0.1']
    parser: keyvalue
    metrics: [{name: t, unit: s, direction: lower}]
    iterations: 3
    warmups: 0
YAML

echo "1..5"
daemon_start || exit 1
sql "CREATE TABLE leases (machine TEXT);
CREATE TRIGGER leases_count AFTER UPDATE OF lease_owner ON machines
WHEN NEW.lease_owner IS NOT NULL BEGIN INSERT INTO leases VALUES (NEW.name); END;"
# An ended job of long ago with a run of b stored as done.
sql "INSERT INTO kernels (id, name, spec, spec_hash, created_at) VALUES (1000, 'old', '{}', 'old', 0);
INSERT INTO jobs (id, name, spec, state, submitted_at, finished_at) VALUES (1000, 'old', '{}', 'done', 0, 0);
INSERT INTO runs (job, machine, kernel, benchmark, iterations, state) VALUES (1000, 'b', 1000, 'nap', 3, 'done');"
id=$(submit "$T/nap.yaml")
"$hilab" wait --timeout 120 "$id" >"$T/wait.out" 2>&1
check "the job on a ends done (hilab wait)" grep -q "^job $id done" "$T/wait.out"
check "its 3 samples stored" test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $id")" = 3
check "a was leased for it" test "$(sql "SELECT COUNT(*) FROM leases WHERE machine = 'a'")" -ge 1
check "b, with nothing queued, never leased" test "$(sql "SELECT COUNT(*) FROM leases WHERE machine = 'b'")" = 0
check "the old job left as it was" test "$(sql "SELECT state FROM jobs WHERE id = 1000")" = "done"
daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
