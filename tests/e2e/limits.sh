#!/usr/bin/env bash
# Inputs that must not get in, tried as an attacker would through the CLI:
# a parameter inside a `sh -c` script (refused by jobs check, the safe form
# accepted), a job of 10^8 runs (refused at submit, nothing queued), a
# "billion laughs" and a deeply nested file (a bounded error, at once),
# names that would be paths or quotes, a recursive query (stopped by its
# time limit) and one of too many rows, escapes from the read-only query
# (VACUUM INTO, ATTACH, load_extension), and the modes of a new database,
# its WAL and shared memory (0640 under umask 022) while hilabd holds it
# open.
set -u
umask 022
S=$HILAB_SRCDIR
. "$S/tests/lib/hilabd.sh"
. "$S/tests/lib/skip.sh"
command -v sqlite3 >/dev/null || skip_missing "sqlite3 missing (scripts/packages.txt)"
daemon_scratch limits
trap 'daemon_stop KILL; rm -rf "$T"' EXIT
cat >"$HILAB_MACHINES/lab1.yaml" <<'YAML'
name: lab1
kind: ssh
ssh: {host: 127.0.0.1, identity: /nonexistent/key, known_hosts: /nonexistent/kh}
YAML
export HILAB_CATALOG=$S/benchmarks

# has FILE TEXT: the file holds the fixed text.
has() { grep -qF -- "$2" "$1"; }
# job NAME COMMAND PARAMS: a job file of one custom command on lab1, in
# $T whatever the name ("/" made "_" in the file's name).
job() {
	local f=$T/${1//\//_}.yaml

	cat >"$f" <<YAML
name: $1
machines: [lab1]
benchmarks:
  - name: b
    command: $2
    params: $3
    parser: keyvalue
    metrics: [{name: t, unit: s, direction: lower}]
YAML
	echo "$f"
}
# mode FILE: its permission bits in octal.
mode() { stat -c %a "$1"; }
# secs COMMAND...: runs it, leaving its stderr in $T/err; prints seconds.
secs() {
	local t0=$(date +%s%N)

	"$@" >/dev/null 2>"$T/err"
	echo $((($(date +%s%N) - t0) / 1000000000))
}

echo "1..20"
daemon_start

# The README's old pattern: a parameter pasted into a shell script.
check "a parameter inside a sh -c script is refused by jobs check" \
    rc 2 "$hilab" jobs check "$(job shell '[sh, -c, "run --n={n}"]' '{n: [1, "$(touch x)"]}')"
check "... naming the argument and the safe form" has "$T/err" \
    'shell.yaml:5:5: "command": argument 3: parameter "{n}" inside a shell script; pass it as a word after the script and use "$1"'
check "... behind a wrapper too (chrt ... bash -ec)" \
    rc 2 "$hilab" jobs check "$(job wrapped '[chrt, --idle, "0", /bin/bash, -ec, "echo {n}"]' '{n: 1}')"
check "the safe form passes, whatever the value" \
    rc 0 "$hilab" jobs check "$(job safe "[sh, -c, 'run --n=\"\$1\"', sh, \"{n}\"]" "{n: ['\$(touch x)', 'a b; c']}")"

# 10^8 runs: eight parameters of ten values.
ten='[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]'
huge=$(job huge '[run, "{a}", "{b}", "{c}", "{d}", "{e}", "{f}", "{g}", "{h}"]' \
    "{a: &t $ten, b: *t, c: *t, d: *t, e: *t, f: *t, g: *t, h: *t}")
check "a job of 10^8 runs is refused at submit" rc 2 "$hilab" submit "$huge"
check "... naming the count and the limit" has "$T/err" \
    'huge.yaml:1:1: job "huge": expands to 100000000 runs, the limit is 100000'
check "... and nothing is queued" test "$(sql "SELECT COUNT(*) FROM jobs")" = 0

# A billion laughs: nine levels of ten aliases.
{
	echo 'a0: &a0 [x, x, x, x, x, x, x, x, x, x]'
	for i in 1 2 3 4 5 6 7 8 9; do
		p="*a$((i - 1))"
		echo "a$i: &a$i [$p, $p, $p, $p, $p, $p, $p, $p, $p, $p]"
	done
} >"$T/laughs.yaml"
check "a billion laughs is refused within 5 s" test "$(secs "$hilab" jobs check "$T/laughs.yaml")" -lt 5
check "... as aliases past 10^6 nodes" has "$T/err" "aliases expand the document past 1000000 nodes"
python3 -c 'print("[" * 100000 + "]" * 100000)' >"$T/deep.yaml"
check "200 KB of nesting is refused within 5 s" test "$(secs "$hilab" jobs check "$T/deep.yaml")" -lt 5
check "... at level 65" has "$T/err" "deep.yaml:1:65: nesting deeper than 64 levels"

check "a job name that is a path is refused" \
    rc 2 "$hilab" jobs check "$(job ../etc '[run]' '{}')"
printf '%s\n' 'name: k' 'machines: [lab1]' 'kernels: [{name: "it'"'"'s", image: /k}]' \
    'benchmarks: [{name: hackbench}]' >"$T/k.yaml"
check "... a kernel name with a quote too" rc 2 "$hilab" jobs check "$T/k.yaml"
check "... saying what a kernel name may hold" has "$T/err" \
    "k.yaml:3:18: \"name\" must be 1 to 64 bytes without control characters, quotes"
check "a sweep whose name is a path is refused" \
    rc 2 "$hilab" sweep add '../x y' "$T/safe.yaml" --every 1d

# A recursive query without end, and one of many rows.
check "a recursive query is stopped by --timeout" rc 1 "$hilab" query --timeout 1s \
    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) SELECT COUNT(*) FROM n"
check "... saying so" has "$T/err" "query: stopped after 1s; narrow it, or raise --timeout"
check "more rows than --max-rows end in an error, printing none" bash -c \
    "! '$hilab' query --max-rows 5 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6) SELECT i FROM n' >'$T/out' 2>'$T/err' && grep -qF 'more than 5 rows' '$T/err' && ! test -s '$T/out'"
check "VACUUM INTO, ATTACH and load_extension fail and write nothing" bash -c "
    ! '$hilab' query \"VACUUM INTO '$T/copy.db'\" 2>/dev/null &&
    ! '$hilab' query \"ATTACH '$T/other.db' AS o\" 2>/dev/null &&
    ! '$hilab' query \"SELECT load_extension('$T/x')\" 2>/dev/null &&
    ! test -e '$T/copy.db' && ! test -e '$T/other.db'"

# The database, its WAL and shared memory while hilabd holds them.
check "a new database, its WAL and shared memory are 0640 (umask 022)" test \
    "$(mode "$HILAB_DB") $(mode "$HILAB_DB-wal") $(mode "$HILAB_DB-shm")" = "640 640 640"
daemon_stop TERM
exit $((failed > 0))
