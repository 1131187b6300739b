#!/usr/bin/env bash
# hilab bisect's command line on a real git tree and database, hilabd not
# running: start states its range and budget and stores the template of
# its steps; every bad input is a usage error naming what is wrong (an
# unknown commit, a good end that is no ancestor, an empty range, a job
# with two or no kernels built from git, a parameter with several values,
# an undeclared metric, a bad confidence); list, show, --json and cancel.
# Usage: bisect_cli.sh   (TAP)
set -u
. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
. "$HILAB_SRCDIR/tests/lib/skip.sh"
for c in git sqlite3 python3; do
	command -v $c >/dev/null || skip_missing "$c missing (scripts/packages.txt)"
done
T=$(mktemp -d /tmp/hilab-bisect-cli.XXXXXX)
trap 'rm -rf "$T"' EXIT
export HILAB_DB=$T/hilab.db HILAB_MACHINES=$T/machines HILAB_SOCKET=$T/none.sock
mkdir -p "$HILAB_MACHINES" "$T/tree"
cat >"$HILAB_MACHINES/vm.yaml" <<'YAML'
name: vm
kind: libvirt
arch: x86_64
ssh: {host: 127.0.0.1, identity: KEY, known_hosts: KNOWN}
libvirt: {uri: "qemu:///system", vcpus: 2, memory: 512M}
YAML
sed -i "s#KEY#$T/key#; s#KNOWN#$T/known_hosts#" "$HILAB_MACHINES/vm.yaml"
: >"$T/key"
: >"$T/known_hosts"
GIT="git -C $T/tree -c user.name=Dev -c user.email=dev@localhost"
$GIT init -q
for i in 0 1 2 3 4 5 6; do
	echo "$i" >"$T/tree/f"
	$GIT add f
	$GIT commit -qm "change $i"
done
good=$($GIT rev-parse HEAD~6)
bad=$($GIT rev-parse HEAD)

# job NAME KERNELS PARAMS: a job file of hackbench on vm.
job() {
	cat >"$T/$1.yaml" <<YAML
name: $1
machines: [vm]
kernels:
$2
benchmarks:
  - name: hackbench
    params: {$3}
    iterations: 3
YAML
	echo "$T/$1.yaml"
}
one="  - {name: tip, git: $T/tree, base: HEAD, config: tinyconfig}"
ok=$(job ok "$one" "groups: 1, loops: 50")


echo "1..16"
check "start: exit 0" rc 0 "$hilab" bisect start "$ok" --good "$good" --bad "$bad" --budget 60
check "start states the range and the budget" grep -q '^bisection 1 "ok": 6 commits after the good end on vm, hackbench time groups=1,loops=50,mode=--process; at most 60 samples (12 step jobs, each 3 iterations of a commit between one of each end, 3 boots)$' "$T/out"
check "the range is stored good first, with subjects" test "$(sql "SELECT json_array_length(commits) || ' ' || json_extract(commits, '\$[0]') || ' ' || json_extract(subjects, '\$[6]') FROM bisects WHERE id = 1")" = "7 $good change 6"
check "the template: one kernel from the tree, one benchmark pinned, one round" test "$(sql "SELECT json_array_length(spec, '\$.kernels') || json_extract(spec, '\$.kernels[0].git') || json_extract(spec, '\$.benchmarks[0].params.groups[0]') || json_extract(spec, '\$.rounds') FROM bisects WHERE id = 1")" = "1$T/tree11"
check "unknown commit: exit 2" rc 2 "$hilab" bisect start "$ok" --good "$good" --bad nosuch
check "unknown commit: named" grep -q 'unknown commit "nosuch"' "$T/err"
check "good not an ancestor of bad: exit 2, named" bash -c "\"$hilab\" bisect start '$ok' --good '$bad' --bad '$good' 2>'$T/err'; [ \$? = 2 ] && grep -q 'is not an ancestor of' '$T/err'"
check "an empty range: exit 2" rc 2 "$hilab" bisect start "$ok" --good "$bad" --bad "$bad"
two=$(job two "$one
  - {name: other, git: $T/tree, base: HEAD~1, config: tinyconfig}" "groups: 1")
check "two kernels built from git: exit 2, said" bash -c "\"$hilab\" bisect start '$two' --good '$good' --bad '$bad' 2>'$T/err'; [ \$? = 2 ] && grep -q '2 kernels built from git' '$T/err'"
none=$(job none "  - {name: running}" "groups: 1")
check "no kernel built from git: exit 2" rc 2 "$hilab" bisect start "$none" --good "$good" --bad "$bad"
many=$(job many "$one" "groups: [1, 2]")
check "a parameter of two values: exit 2, named" bash -c "\"$hilab\" bisect start '$many' --good '$good' --bad '$bad' 2>'$T/err'; [ \$? = 2 ] && grep -q 'parameter \"groups\" has 2 values' '$T/err'"
check "an undeclared metric: exit 2" rc 2 "$hilab" bisect start "$ok" --good "$good" --bad "$bad" --metric nope
check "a confidence of 1.5: exit 2" rc 2 "$hilab" bisect start "$ok" --good "$good" --bad "$bad" --confidence 1.5
"$hilab" --json bisect show 1 >"$T/show.json"
check "show --json: 7 commits with their verdicts, state running" python3 -c "
import json, sys
o = json.load(open(sys.argv[1]))
assert o['state'] == 'running' and len(o['commits']) == 7, o
assert [c['verdict'] for c in o['commits']][::6] == ['good', 'bad'], o
" "$T/show.json"
check "cancel: the bisection is cancelled" bash -c "\"$hilab\" bisect cancel 1 >/dev/null && [ \"\$(sqlite3 '$HILAB_DB' 'SELECT state FROM bisects WHERE id = 1')\" = cancelled ]"
check "show of an unknown bisection: exit 2" rc 2 "$hilab" bisect show 99
exit $((failed > 0))
