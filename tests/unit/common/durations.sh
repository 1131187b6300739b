#!/usr/bin/env bash
# One duration grammar everywhere: each string of durations.txt is accepted
# (and means the same milliseconds) or refused alike by a machine file
# (ssh connect_timeout), a job file (a benchmark's timeout), hilab sweep
# add --every and hilab wait --timeout (whose job does not exist: exit 2
# all the same, so there the message tells).  (TAP)
set -u
B=$HILAB_BUILDDIR
S=$HILAB_SRCDIR
hilab=$B/cli/hilab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

n=0
failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }

# A machine whose connect_timeout is $1; the inventory the jobs use.
machine() {
	printf 'name: m\nkind: ssh\nssh:\n  host: h\n  identity: k\n' >"$2/m.yaml"
	printf '  known_hosts: kh\n  connect_timeout: "%s"\n' "$1" >>"$2/m.yaml"
}
# A job whose one benchmark has timeout $1.
job() {
	printf 'name: j\nmachines: [m]\nbenchmarks:\n  - name: t\n' >"$2"
	printf '    command: ["true"]\n    parser: json\n' >>"$2"
	printf '    metrics: [{name: v, unit: s, direction: lower}]\n' >>"$2"
	printf '    timeout: "%s"\n' "$1" >>"$2"
}
# What hilab prints for ms milliseconds.
printed() { if [ $(($1 % 1000)) = 0 ]; then echo "$(($1 / 1000))s"; else echo "${1}ms"; fi; }

mkdir "$T/inv" "$T/m"
machine 10s "$T/inv"
job 10s "$T/ok.yaml"
h() { "$hilab" --db "$T/h.db" --machines "$T/inv" --catalog "$S/benchmarks" "$@"; }

# Checks string $1, which means $2 ms ("-": not a duration), everywhere.
check_one() {
	local s=$1 ms=$2 want=refused got what bad=
	[ "$ms" != - ] && [ "$ms" -ge 1 ] && want=accepted
	machine "$s" "$T/m"
	job "$s" "$T/j.yaml"
	for what in machine job every timeout; do
		case $what in
		machine) "$hilab" machines check "$T/m" >"$T/out" 2>&1 ;;
		job) h jobs check "$T/j.yaml" >"$T/out" 2>&1 ;;
		every) h sweep add "s$n" "$T/ok.yaml" --every "$s" >"$T/out" 2>&1 ;;
		timeout) h wait --timeout "$s" 999999 >"$T/out" 2>&1 ;;
		esac
		case $? in
		2) got=refused ;;
		*) got=accepted ;;
		esac
		# Job 999999 does not exist either (exit 2): only an error
		# about --timeout refuses the duration.
		[ "$what" = timeout ] && ! grep -q -- --timeout "$T/out" &&
		    got=accepted
		[ "$got" = "$want" ] || bad="$bad $what:$got"
		[ "$got" = accepted ] || continue
		case $what in
		machine) grep -qx "    connect_timeout: $(printed "$ms")" "$T/out" || bad="$bad $what:value" ;;
		job) grep -qx "  timeout: $(printed "$ms")" "$T/out" || bad="$bad $what:value" ;;
		every) grep -q " every $(printed "$ms")," "$T/out" || bad="$bad $what:value" ;;
		esac
	done
	if [ -z "$bad" ]; then
		ok "\"$s\" $want everywhere"
	else
		not_ok "\"$s\" should be $want:$bad"
		sed 's/^/# /' "$T/out"
	fi
}

echo "1..$(grep -cv '^#' "$S/tests/unit/common/durations.txt")"
tab=$'\t'
while IFS= read -r line; do
	case $line in '#'*) continue ;; esac
	check_one "${line%%"$tab"*}" "${line#*"$tab"}"
done <"$S/tests/unit/common/durations.txt"
[ "$failed" = 0 ]
