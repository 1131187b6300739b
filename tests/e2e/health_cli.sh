#!/usr/bin/env bash
# Machine health by hand through the hilab CLI, with no hilabd and no
# sshd: machines list without a database, machines set and its usage
# errors, and the queued run that status shows waiting on a machine in
# maintenance.  The run is written with sqlite3 as hilabd's planner would.
set -u
. "$HILAB_SRCDIR/tests/lib/skip.sh"
for tool in sqlite3 python3; do
	command -v $tool >/dev/null || skip_missing_tap "$tool not installed"
done
. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
T=$(mktemp -d /tmp/hilab-health.XXXXXX) ||
    { echo "Bail out! mktemp"; exit 1; }
trap 'rm -rf "$T"' EXIT
export HILAB_DB=$T/db/hilab.db HILAB_SOCKET=$T/control.sock
export HILAB_MACHINES=$T/machines
mkdir "$HILAB_MACHINES"
cat >"$HILAB_MACHINES/a.yaml" <<YAML
name: a
kind: ssh
ssh: {host: 127.0.0.1, identity: /nonexistent, known_hosts: /nonexistent}
YAML
cat >"$HILAB_MACHINES/vm.yaml" <<YAML
name: vm
kind: libvirt
ssh: {host: 127.0.0.11, port: 2222, identity: k, known_hosts: kh}
libvirt: {vcpus: 2, memory: 1G}
YAML
cat >"$T/job.yaml" <<YAML
name: waits
machines: [a]
benchmarks:
  - name: hackbench
    params: {groups: 1, loops: 10}
    iterations: 1
YAML

# line NAME: machine NAME's line of hilab machines list.
line() {
	"$hilab" machines list | grep "^$1 "
}

# health_json NAME: "HEALTH|REASON" of machine NAME in hilab --json
# machines list (None for null).
health_json() {
	"$hilab" --json machines list | python3 -c 'import json, sys
m = {m["name"]: m for m in json.load(sys.stdin)}[sys.argv[1]]
print(m["health"], m["reason"], sep="|")' "$1"
}

# run_error JOB: the error column of the job's only run in hilab status.
run_error() {
	"$hilab" status "$1" | tail -1 | sed 's/.* queued *//'
}

echo "1..21"

out=$("$hilab" machines list 2>"$T/err")
check "machines list without a database exits 0" test $? = 0
echo "$out" | sed 's/^/# /'
check "no health without a database" \
    grep -Eq '^a .*127\.0\.0\.1:22 +- +-$' <<<"$out"
check "nothing on stderr without a database" test ! -s "$T/err"

out=$("$hilab" machines set a maintenance --reason "disk swap")
check "set a maintenance exits 0" test $? = 0
check "set prints NAME: HEALTH: REASON" \
    test "$out" = "a: maintenance: disk swap"
line a | sed 's/^/# /'
check "list shows maintenance and why on a's line" \
    grep -q ' maintenance disk swap$' <<<"$(line a)"
check "a machine without a row shows -" \
    grep -Eq ' +- +-$' <<<"$(line vm)"
check "--json list has health and reason" \
    test "$(health_json a)" = "maintenance|disk swap"
check "--json list has null health and reason without a row" \
    test "$(health_json vm)" = "None|None"

job=$(submit "$T/job.yaml")
sql "INSERT INTO kernels (name, spec, spec_hash, created_at)
    VALUES ('running', '{}', 'running', 0);
    INSERT INTO runs (job, machine, kernel, benchmark, params, iterations)
    VALUES ($job, 'a', 1, 'hackbench', 'groups=1 loops=10', 1);"
"$hilab" status "$job" | sed 's/^/# /'
check "status says the run waits on a in maintenance" \
    test "$(run_error "$job")" = \
    'waiting: machine "a" is maintenance: disk swap'
check "status --json says it in the run's error" grep -q \
    '"error": "waiting: machine \\"a\\" is maintenance: disk swap"' \
    <<<"$("$hilab" --json status "$job")"

"$hilab" machines set --reason=bmc a bad >/dev/null
check "--reason before the positionals, bad" \
    test "$(run_error "$job")" = 'waiting: machine "a" is bad: bmc'

out=$("$hilab" machines set a good)
check "set a good prints no reason" test "$out" = "a: good"
check "good clears the reason" grep -Eq ' good +$' <<<"$(line a)"
check "a run on a good machine does not wait" test -z "$(run_error "$job")"

"$hilab" machines set nope good 2>"$T/err"
check "an unknown machine is a usage error" test $? = 2
check "the error names the machine" \
    grep -qF 'machine "nope": no such machine' "$T/err"
"$hilab" machines set a sick 2>"$T/err"
check "an unknown health is a usage error" test $? = 2
check "the error lists the four" \
    grep -qF '"sick": not one of good, unknown, bad, maintenance' "$T/err"
"$hilab" machines set a bad --reason 2>"$T/err"
check "--reason without its argument is a usage error" test $? = 2
check "nothing was set without the argument" \
    test "$(health_json a)" = "good|None"
exit $((failed > 0))
