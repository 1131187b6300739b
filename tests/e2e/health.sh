#!/usr/bin/env bash
# Health that decides, through hilabd on a real lab host (sshd in a network
# namespace) with the real agent: a machine set unknown passes a health
# check (the agent's facts and a short hackbench) before its next run; one
# whose check fails three times goes bad and its run waits, status saying
# why; one in maintenance takes no run until it is set good; a host key
# that changed puts the machine in maintenance and power-cycles nothing.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
command -v sqlite3 >/dev/null || lab_skip "sqlite3 missing (apt-get install sqlite3)"
LAB_TAP=1 lab_init
eval "$(lab_host_up demo)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
export HILAB_DB=$LAB_TMP/hilab.db HILAB_SOCKET=$LAB_TMP/control.sock
HILABD_LOG=$LAB_TMP/hilabd.log
export HILAB_MACHINES=$LAB_TMP/machines
mkdir -p "$HILAB_MACHINES"

# machine NAME KNOWN_HOSTS [EXTRA-YAML]: a machine file for the lab host,
# powered by commands that only leave a mark ($LAB_TMP/NAME.power).
machine() {
	cat >"$HILAB_MACHINES/$1.yaml" <<YAML
name: $1
kind: ssh
ssh:
  host: $HOST
  identity: $KEY
  known_hosts: $2
  agent_dir: $AGENT_DIR_REMOTE
  connect_timeout: 1s
power:
  command:
    on: [touch, $LAB_TMP/$1.power]
    off: [touch, $LAB_TMP/$1.power]
    cycle: [touch, $LAB_TMP/$1.power]
  boot_timeout: 5s
${3:-}
YAML
}

# A known_hosts file with another key for the host's address.
ssh-keygen -q -t ed25519 -N '' -f "$LAB_TMP/other" || exit 1
echo "$HOST $(cut -d' ' -f1,2 "$LAB_TMP/other.pub")" >"$LAB_TMP/wrong_hosts"
machine demo "$KNOWN_HOSTS"
machine sick "$KNOWN_HOSTS" "health_check: [sh, -c, 'exit 3']"
machine rekeyed "$LAB_TMP/wrong_hosts"

trap daemon_cleanup EXIT

# job NAME MACHINE: a short hackbench job on the machine; prints its id.
job() {
	cat >"$LAB_TMP/$1.yaml" <<YAML
name: $1
machines: [$2]
benchmarks:
  - name: hackbench
    params: {groups: 1, loops: 10}
    iterations: 1
    warmups: 0
YAML
	submit "$LAB_TMP/$1.yaml"
}
health() { sql "SELECT health || '|' || COALESCE(health_reason, '') FROM machines WHERE name = '$1'"; }
job_state() { sql "SELECT state FROM jobs WHERE id = $1"; }
job_done() { [ "$(job_state "$1")" = done ]; }
job_ended() { [ "$(job_state "$1")" = done ] || [ "$(job_state "$1")" = failed ]; }
is_bad() { [ "$(sql "SELECT health FROM machines WHERE name = '$1'")" = bad ]; }
events() { sql "SELECT COUNT(*) FROM events WHERE machine = '$1' AND message LIKE '$2'"; }

echo "1..14"
daemon_start

# A machine set unknown by hand is checked before its next run.
"$hilab" machines set demo unknown --reason "new DIMM" >/dev/null
a=$(job checked demo)
until_true 600 job_done "$a"
check "set unknown, the machine's run waits for a health check that passes" \
    test "$(events demo 'health check passed in % (facts and "hackbench"): machine "demo" is good again')" = 1
check "the check came before the run" \
    test "$(sql "SELECT COUNT(*) FROM events e JOIN runs r ON r.job = $a WHERE e.machine = 'demo' AND e.message LIKE 'health check passed%' AND e.time <= r.started_at")" = 1
check "the machine is good after it, the job done" \
    test "$(health demo)|$(job_state "$a")" = "good||done"

# A check that fails three times makes the machine bad; its run waits.
"$hilab" machines set sick unknown >/dev/null
b=$(job sick sick)
until_true 600 is_bad sick
check "three failed checks make the machine bad, saying why" \
    test "$(health sick)" = 'bad|health check failed: "sh" failed'
check "each failed check is an event" \
    test "$(events sick 'health check failed: "sh" failed')" = 3
check "the bad machine's run is still queued" \
    test "$(sql "SELECT state FROM runs WHERE job = $b")" = queued
check "status says why it waits" \
    bash -c "'$hilab' status $b | grep -q 'waiting: machine \"sick\" is bad: health check failed'"
"$hilab" cancel "$b" >/dev/null

# Maintenance by hand: no run until it is set good.
"$hilab" machines set demo maintenance --reason "disk swap" >/dev/null
c=$(job held demo)
# The worker looks at its queue on a nudge (submit) or every 5 s: watched
# for 6 s, the run stays queued.
run_taken() { [ "$(sql "SELECT state FROM runs WHERE job = $c")" != queued ]; }
stays_queued() { ! until_true 60 run_taken; }
check "a machine in maintenance takes no run" stays_queued
"$hilab" machines set demo good >/dev/null
until_true 600 job_done "$c"
check "set good, it takes the run" test "$(job_state "$c")" = done

# A host key that changed: maintenance at once, nothing power-cycled.
d=$(job rekeyed rekeyed)
until_true 600 job_ended "$d"
check "the run failed on the changed host key" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $d AND state = 'failed' AND error LIKE '%host key%'")" = 1
check "the machine is in maintenance, the host key the reason" \
    bash -c "grep -q '^maintenance|.*host key' <<<'$(health rekeyed)'"
check "the event tells the operator what to do" \
    test "$(events rekeyed 'machine "rekeyed" is in maintenance: % once it is fixed: hilab machines set rekeyed good')" = 1
check "no power command ran" test ! -e "$LAB_TMP/rekeyed.power"
check "nor on the machines above" \
    test ! -e "$LAB_TMP/demo.power" -a ! -e "$LAB_TMP/sick.power"
daemon_log_on_failure
exit $((failed > 0))
