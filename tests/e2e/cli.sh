#!/usr/bin/env bash
# The one grammar of hilab and hilabd on a real database (results-mkdb:
# jobs planned, run, stored through hilabd's own code): --help of every
# command from the table, --json of every command parsed by python3 with
# its documented keys, exit codes (a missing job, a bad option, a timeout,
# hilabd away), did-you-mean, typed parameters, the catalog discoverable.
# Usage: cli.sh RESULTS-MKDB   (TAP)
set -u
mkdb=$(realpath "$1")
B=$HILAB_BUILDDIR
S=$HILAB_SRCDIR
. "$S/tests/lib/hilabd.sh"
. "$S/tests/lib/skip.sh"
for c in hackbench sqlite3 python3; do
	command -v $c >/dev/null || skip_missing "$c missing (scripts/packages.txt)"
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
cd "$T" || exit 1

# has FILE TEXT: the file holds the fixed text.
has() { grep -qF -- "$2" "$1"; }
# json_keys FILE KEY...: the file is JSON (an object, or a non-empty
# array of objects) with each KEY; "a.b" looks into member a.
json_keys() {
	python3 - "$@" <<'EOF'
import json, sys
v = json.load(open(sys.argv[1]))
if isinstance(v, list):
    if not v:
        sys.exit("empty array")
    v = v[0]
for k in sys.argv[2:]:
    o = v
    for part in k.split("."):
        if not isinstance(o, dict) or part not in o:
            sys.exit("missing key " + k)
        o = o[part]
EOF
}
# json_empty FILE: the file is the JSON array [].
json_empty() { python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1])) != [])' "$1"; }

mkdir -p "$T/machines" "$T/empty"
cat >"$T/machines/lab1.yaml" <<'YAML'
name: lab1
kind: ssh
ssh: {host: 127.0.0.1, identity: /nonexistent/key, known_hosts: /nonexistent/kh}
YAML
export HILAB_DB=$T/h.db HILAB_SOCKET=$T/no.sock HILAB_MACHINES=$T/machines
export HILAB_CATALOG=$S/benchmarks HILAB_KERNEL_CACHE=$T/kcache
"$B/agents/hilab-agent" facts >"$T/facts.txt"
"$mkdb" "$T/h.db" "$T/facts.txt" >/dev/null || { echo "1..0 # results-mkdb failed"; exit 1; }

# Every command and subcommand of the table answers --help with its usage.
"$hilab" --help >"$T/help.txt"
check "hilab --help exits 0 with the commands" has "$T/help.txt" "commands:"
sed -n '/^commands:/,/^$/p' "$T/help.txt" |
    sed -n 's/^  \([a-z]\+\)\( \([a-z]\+\)\)\?.*/\1 \3/p' >"$T/cmds"
check "the help lists every command, subcommands too" bash -c \
    "[ \$(wc -l <'$T/cmds') -ge 27 ] && grep -qx 'machines power' '$T/cmds' && grep -qx 'sweep add' '$T/cmds' && grep -qx 'benchmarks show' '$T/cmds'"
bad=
while read -r c s; do
	"$hilab" $c $s --help >"$T/h" 2>&1 && head -1 "$T/h" | grep -q "^usage: hilab $c${s:+ $s}" || bad="$bad [$c $s]"
	"$hilab" help $c $s | cmp -s - "$T/h" || bad="$bad [help $c $s]"
done <"$T/cmds"
check "every command's --help exits 0 with its usage${bad:+:$bad}" test -z "$bad"
check "hilab compare --help lists --pool" bash -c "'$hilab' compare --help | grep -q -- '--pool'"
check "hilab --version" bash -c "'$hilab' --version | grep -qx 'hilab [0-9.]*'"
check "hilab export --help writes no file" bash -c "'$hilab' export --help >/dev/null && ! test -e ./--help"
check "hilabd --help exits 0 and says what -n, -v, -d do" bash -c \
    "'$hilabd' --help | grep -q -- '-n, --check' && '$hilabd' --help | grep -q -- '-v, --verbose' && '$hilabd' --help | grep -q -- '-d, --debug'"
check "hilabd --version" bash -c "'$hilabd' --version | grep -qx 'hilabd [0-9.]*'"

# Usage errors: exit 2, what is wrong, the usage, and did you mean.
check "a bad option exits 2" rc 2 "$hilab" compare --stlye amd
check "... and names the option it may be" has "$T/err" 'unknown option "--stlye" (did you mean "--style"?)'
check "... and prints the command's usage" has "$T/err" "usage: hilab compare"
check "a bad style exits 2 with the closest" rc 2 "$hilab" compare --style amdd
check "... naming it" has "$T/err" '(did you mean "amd"?)'
check "an unknown command exits 2" rc 2 "$hilab" compar
check "... with the closest" has "$T/err" '(did you mean "compare"?)'
check "a missing subcommand exits 2" rc 2 "$hilab" sweep
check "a bad duration exits 2" rc 2 "$hilab" wait --timeout soon 1
check "a required option missing exits 2" rc 2 "$hilab" sweep add s "$T/hb.yaml"
check "... naming it" has "$T/err" "--every or --cron is required"
check "--at that is no time of day exits 2" rc 2 "$hilab" sweep add s "$T/hb.yaml" --every 1d --at 25:00
check "... naming it" has "$T/err" 'sweep add: --at "25:00": not a time of day HH:MM'
check "hilabd with a bad option exits 2" rc 2 "$hilabd" --bogus

cat >"$T/hb.yaml" <<'YAML'
name: hb
machines: [lab1]
benchmarks:
  - name: hackbench
    params: {groups: [1, 2], loops: 100}
    iterations: 3
YAML

# Global options anywhere on the line.
"$hilab" --db "$T/h.db" --json list >"$T/a.json"
"$hilab" list --json --db "$T/h.db" >"$T/b.json"
check "global options after the command mean the same" cmp -s "$T/a.json" "$T/b.json"

# A job, machine, benchmark or sweep that does not exist: exit 2, named.
for c in "status 999" "wait 999" "cancel 999" "logs 999" "report 999" "plot 999" "compare --job 999"; do
	check "$c: exit 2" rc 2 "$hilab" $c
	check "$c: names job 999" has "$T/err" "999: no such job"
done
check "machines power of an unknown machine: exit 2" rc 2 "$hilab" machines power lab2 status
check "... with the closest" has "$T/err" 'machine "lab2": no such machine (did you mean "lab1"?)'
check "benchmarks show of an unknown benchmark: exit 2" rc 2 "$hilab" benchmarks show sysbench
check "... did you mean sysbench-cpu" has "$T/err" '(did you mean "sysbench-cpu"?)'
check "sweep show of an unknown sweep: exit 2" rc 2 "$hilab" sweep show nightly

# The catalog is discoverable: every entry, typed parameters, metrics.
"$hilab" benchmarks list >"$T/bl.txt"
"$hilab" --json benchmarks list >"$T/bl.json"
bad=
for f in "$S"/benchmarks/*.yaml; do
	name=$(sed -n 's/^name: *//p' "$f")
	grep -qx "$name" "$T/bl.txt" || bad="$bad $name"
	python3 -c 'import json,sys; sys.exit(sys.argv[2] not in [b["name"] for b in json.load(open(sys.argv[1]))])' "$T/bl.json" "$name" || bad="$bad json:$name"
done
check "benchmarks list shows every catalog entry${bad:+, not:$bad}" test -z "$bad"
check "benchmarks list gives types, defaults, units and directions" has "$T/bl.txt" "groups (integer, default 4)"
check "... and metrics with unit and direction" has "$T/bl.txt" "time (s, lower is better)"
check "benchmarks list --json keys" json_keys "$T/bl.json" name description file command params iterations warmups timeout_ms install server parser metrics
python3 -c 'import json,sys; b=[x for x in json.load(open(sys.argv[1])) if x["name"]=="hackbench"][0]; p=b["params"][0]; m=b["metrics"][0]; sys.exit(not (p["type"]=="integer" and p["default"]=="4" and m["unit"]=="s" and m["direction"]=="lower"))' "$T/bl.json"
check "benchmarks --json: hackbench groups is an integer, time is s, lower" test $? = 0
"$hilab" benchmarks show tbench >"$T/tbench.yaml"
check "benchmarks show has the server and the install" bash -c "grep -q 'port: 7003' '$T/tbench.yaml' && grep -q 'package: dbench' '$T/tbench.yaml'"
# Every entry's show is a catalog file that reads back the same.
bad=
for f in "$S"/benchmarks/*.yaml; do
	name=$(sed -n 's/^name: *//p' "$f")
	rm -rf "$T/cat2" && mkdir "$T/cat2"
	"$hilab" benchmarks show "$name" >"$T/cat2/$name.yaml"
	"$hilab" --catalog "$T/cat2" benchmarks show "$name" |
	    cmp -s - "$T/cat2/$name.yaml" || bad="$bad $name"
done
check "benchmarks show prints a catalog file that reads back the same${bad:+, not:$bad}" test -z "$bad"
# Typed parameters, checked at submit.
cat >"$T/typed.yaml" <<'YAML'
name: typed
machines: [lab1]
benchmarks:
  - name: hackbench
    params: {groups: 4x}
YAML
check "submit of groups: 4x exits 2" rc 2 "$hilab" submit "$T/typed.yaml"
check "... naming file:line:col and the type" has "$T/err" 'typed.yaml:5:22: parameter "groups" of hackbench: "4x" is not an integer'
check "nothing was queued" test "$(sqlite3 "$T/h.db" "SELECT COUNT(*) FROM jobs WHERE name = 'typed'")" = 0

# --json of every command: valid JSON with the keys the README lists.
j() { "$hilab" --json "$@" >"$T/j.json" 2>"$T/err"; }
j list
check "list --json keys" json_keys "$T/j.json" id name state file cancel_requested submitted_at started_at finished_at error runs.queued runs.running runs.done runs.failed runs.cancelled
j status 1
check "status --json keys" json_keys "$T/j.json" id name state runs.done run_list
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["run_list"][0]; [r[k] for k in "id machine kernel benchmark params round boot position iterations warmups state agent_run_id started_at finished_at error boot_tries".split()]' "$T/j.json"
check "status --json run keys" test $? = 0
j logs 1
check "logs --json of a job without events is []" json_empty "$T/j.json"
j wait 1
check "wait --json of a done job: its state and outcome" json_keys "$T/j.json" id state outcome
check "... outcome done" has "$T/j.json" '"outcome": "done"'
j compare --job 2
check "compare --json is one array of tables" json_keys "$T/j.json" benchmark metric unit better statistic columns rows warnings notes
j compare --job 1 --job 4 --job 5
check "compare --json of several tables is valid JSON" json_keys "$T/j.json" benchmark rows
j report 1
check "report --json keys" json_keys "$T/j.json" job.id style text tables
j plot 1 --output "$T/plots" --format svg
check "plot --json keys" json_keys "$T/j.json" path benchmark metric
j query "SELECT COUNT(*) AS n FROM v_samples WHERE job = 1"
check "query --json rows" json_keys "$T/j.json" n
j export "$T/copy.db"
check "export --json keys" json_keys "$T/j.json" file
j machines list
check "machines list --json keys" json_keys "$T/j.json" name kind arch cpus host port
check "machines list --json: cpus not declared is null" has "$T/j.json" '"cpus": null'
rc 0 "$hilab" machines list
check "machines list: cpus not declared is -, not a number" bash -c \
    "grep -Eq '^lab1 +ssh +[a-z0-9_]+ +- ' '$T/out'"
j machines check
check "machines check --json keys" json_keys "$T/j.json" dir machines valid
j --machines "$T/empty" machines list
check "machines list --json of no machines is []" json_empty "$T/j.json"
j jobs check "$T/hb.yaml"
check "jobs check --json is the stored job" json_keys "$T/j.json" file valid job.name job.machines job.benchmarks
j benchmarks show hackbench
check "benchmarks show --json keys" json_keys "$T/j.json" name params metrics install server
j kernels list
check "kernels list --json of an empty cache is []" json_empty "$T/j.json"
j sweep list
check "sweep list --json of no sweeps is []" json_empty "$T/j.json"
j submit "$T/hb.yaml"
check "submit --json keys" json_keys "$T/j.json" job name hilabd
id=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job"])' "$T/j.json")
j sweep add nightly "$T/hb.yaml" --every 1d --at 03:00
check "sweep add --json keys" json_keys "$T/j.json" name file interval_ms at enabled next_at
j sweep show nightly
check "sweep show --json keys" json_keys "$T/j.json" name jobs events
j sweep disable nightly
check "sweep disable --json keys" json_keys "$T/j.json" sweep disable
check "sweep show of a close name: did you mean" rc 2 "$hilab" sweep show nightyl
check "... naming it" has "$T/err" '(did you mean "nightly"?)'
j --version
check "--version --json" json_keys "$T/j.json" version

# wait: a timeout has its own code; hilabd away is noticed (exit 3).
t0=$(date +%s%N)
check "wait --timeout of a queued job exits 4" rc 4 "$hilab" wait --timeout 500ms "$id"
check "... saying how long it waited" has "$T/err" "still queued after 500ms"
check "... within a second" test $((($(date +%s%N) - t0) / 1000000)) -lt 1500
t0=$(date +%s)
check "wait with hilabd away exits 3" rc 3 "$hilab" wait "$id"
check "... saying so" has "$T/err" "hilabd is not answering"
check "... after about 5 seconds" test $(($(date +%s) - t0)) -le 8
"$hilab" --json wait --timeout 200ms "$id" >"$T/j.json" 2>/dev/null
check "wait --json on timeout: outcome timeout" has "$T/j.json" '"outcome": "timeout"'
j cancel "$id"
check "cancel --json keys" json_keys "$T/j.json" job cancel_requested hilabd

echo "1..$n"
exit $((failed > 0))
