#!/usr/bin/env bash
# hilab as a system installs it: `meson install --destdir` holds the
# programs, both agents, the catalog, the examples and schema docs, five
# man pages, two bash completions, hilabd.service and its user; an
# installed hilab reads only installed paths; the man pages render without
# a warning and say what the option tables and key tables say; the unit
# passes systemd-analyze verify; hilabd tells a notify socket it is ready,
# reloading and stopping; completion offers commands, options, choices and
# the names of machines, jobs, benchmarks and sweeps from a real database.
# Usage: install.sh RESULTS-MKDB [WHY-NO-AARCH64-AGENT]   (TAP)
set -u
mkdb=$(realpath "$1")
no_aarch64=${2:-}
B=$HILAB_BUILDDIR
S=$HILAB_SRCDIR
. "$S/tests/lib/hilabd.sh"
. "$S/tests/lib/skip.sh"
for c in groff man systemd-analyze python3 meson; do
	command -v $c >/dev/null || skip_missing "$c missing (scripts/packages.txt)"
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
D=$T/dest

echo "1..35"
meson install -C "$B" --no-rebuild --quiet --destdir "$D" >"$T/install.log" 2>&1
check "meson install --destdir exits 0" test $? = 0
# at PATH-SUFFIX: the installed file whose path ends so, or nothing.
at() { find "$D" -path "*/$1" -type f | head -1; }
missing=
for f in bin/hilab sbin/hilabd hilab/hilab-agent share/hilab/benchmarks/hackbench.yaml \
    man/man1/hilab.1 man/man8/hilabd.8 man/man8/hilab-agent.8 \
    man/man5/hilab-machines.5 man/man5/hilab-jobs.5 \
    bash-completion/completions/hilab bash-completion/completions/hilabd \
    systemd/system/hilabd.service sysusers.d/hilab.conf doc/hilab/README.md \
    doc/hilab/SCHEMA.md doc/hilab/examples/jobs/hackbench-demo.yaml \
    doc/hilab/examples/machines/epyc-2s.yaml; do
	[ -n "$(at "$f")" ] || missing="$missing $f"
done
check "every part is installed${missing:+ (missing:$missing)}" test -z "$missing"
missing=
for f in "$S"/benchmarks/*.yaml; do
	[ -n "$(at "share/hilab/benchmarks/${f##*/}")" ] || missing="$missing ${f##*/}"
done
check "the whole catalog is installed${missing:+ (missing:$missing)}" test -z "$missing"
# The aarch64 agent is built unless the build says why not: an aarch64
# machine, a sanitized build, or no cross compiler (never in CI:
# scripts/packages.txt).  Its absence is a TAP skip, never a pass.
if [ -z "$no_aarch64" ] ||
    { [ "$no_aarch64" = no-cross-compiler ] && [ "${CI:-}" = true ]; }; then
	check "the aarch64 agent too" test -n "$(at hilab/hilab-agent.aarch64)"
else
	n=$((n + 1))
	echo "ok $n - the aarch64 agent too # SKIP not built: $no_aarch64"
fi
check "the installed agent is the build's" cmp -s "$(at hilab/hilab-agent)" "$B/agents/hilab-agent"

# An installed hilab reads the installed catalog, never the source tree's.
ih=$(at bin/hilab)
env -u HILAB_CATALOG "$ih" benchmarks list >"$T/out" 2>"$T/err"
check "an installed hilab does not read the source tree's catalog" \
    bash -c "! grep -q hackbench '$T/out' && ! grep -qF '$S' '$T/err'"
check "... it names the installed catalog it looked for" grep -q "share/hilab/benchmarks" "$T/err"
HILAB_CATALOG=$(dirname "$(at share/hilab/benchmarks/hackbench.yaml)") "$ih" benchmarks list >"$T/out" 2>&1
check "... and lists the installed one" grep -q '^hackbench' "$T/out"
env -u HILAB_CATALOG "$B/cli/hilab" benchmarks list >"$T/out" 2>&1
check "the build tree's hilab lists the source tree's catalog" grep -q '^hackbench' "$T/out"

# Man pages: no groff warning; what the tables say.
man=$(dirname "$(dirname "$(at man/man1/hilab.1)")")
warn=
for p in "$man"/man*/*; do
	groff -man -ww -z "$p" 2>"$T/groff" && [ ! -s "$T/groff" ] || warn="$warn ${p##*/}"
done
check "every man page renders without a warning${warn:+ (not:$warn)}" test -z "$warn"
# render PAGE: the page as man shows it, blanks squeezed.
render() { MANPATH=$man MANWIDTH=80 man "$1" 2>/dev/null | col -bx | tr -s ' '; }
render hilab >"$T/hilab.txt"
check "man hilab finds and renders the page" grep -q "^SYNOPSIS" "$T/hilab.txt"
"$hilab" --help | sed -n '/^commands:/,/^$/p' |
    sed -n 's/^  \([a-z]\+\)\( \([a-z]\+\)\)\?.*/\1\2/p' >"$T/cmds"
bad=
while read -r c; do
	grep -q "^ hilab $c\b" "$T/hilab.txt" || bad="$bad [$c]"
	for o in $("$hilab" $c --help | sed -n '/^options:/,/^$/p' | grep -o -- '--[a-z-]\+'); do
		grep -q -- "$o" "$T/hilab.txt" || bad="$bad [$c $o]"
	done
done <"$T/cmds"
check "hilab(1) has every command and option of --help${bad:+:$bad}" test -z "$bad"
render hilabd >"$T/hilabd.txt"
bad=
for o in $("$hilabd" --help | grep -o -- '--[a-z-]\+' | sort -u); do
	grep -q -- "$o" "$T/hilabd.txt" || bad="$bad $o"
done
check "hilabd(8) has every option of --help${bad:+:$bad}" test -z "$bad"
render hilab-agent >"$T/agent.txt"
bad=
"$B/agents/hilab-agent" --help | sed 's/^usage: //; s/^ *//' | tr -s ' ' >"$T/agent-usage"
while read -r line; do
	grep -qF -- "$line" "$T/agent.txt" || bad="$bad [$line]"
done <"$T/agent-usage"
check "hilab-agent(8)'s synopsis is the agent's usage${bad:+:$bad}" test -z "$bad"
# keys FILE...: the key names of the conf_key tables in C files.
keys() {
	awk '/struct conf_key [a-z_]+\[\] = \{/ { on = 1 } on { print } on && /\.name = NULL/ { on = 0 }' "$@" |
	    grep -oE '(\.name = |[A-Z_]+\()"[a-z_0-9]+"' | grep -oE '[a-z_0-9]+"' | tr -d '"' | sort -u
}
# documents PAGE KEY...: the keys the page does not show in bold.
undocumented() {
	local p=$1 k

	shift
	for k in "$@"; do
		grep -q "\\\\fB$k\\\\fR" "$p" || echo "$k"
	done
}
mk=$(keys "$S"/machines/inventory*.c)
jk=$(keys "$S"/jobs/*.c "$S"/benchmarks/catalog*.c)
check "the machine file keys: $(echo $mk | wc -w), read from the tables" test "$(echo $mk | wc -w)" -ge 40
bad=$(undocumented "$(at man/man5/hilab-machines.5)" $mk | tr '\n' ' ')
check "hilab-machines(5) documents every key${bad:+ (not: $bad)}" test -z "$bad"
bad=$(undocumented "$(at man/man5/hilab-jobs.5)" $jk | tr '\n' ' ')
check "hilab-jobs(5) documents every job and catalog key${bad:+ (not: $bad)}" test -z "$bad"

# The unit: systemd-analyze verify, with its programs where they are
# installed here.
unit=$(at systemd/system/hilabd.service)
sbin=$(dirname "$(at sbin/hilabd)")
sed "s|^ExecStart=.*/hilabd|ExecStart=$sbin/hilabd|" "$unit" >"$T/hilabd.service"
MANPATH=$man systemd-analyze verify "$T/hilabd.service" >"$T/verify" 2>&1
check "systemd-analyze verify hilabd.service is clean" bash -c "[ ! -s '$T/verify' ] || { sed 's/^/# /' '$T/verify'; false; }"
check "it is Type=notify, as its own user, ProtectSystem=strict" bash -c \
    "grep -qx Type=notify '$unit' && grep -qx User=hilab '$unit' && grep -qx ProtectSystem=strict '$unit' && grep -qx StateDirectory=hilab '$unit'"
check "the sysusers file creates that user" grep -q '^u hilab ' "$(at sysusers.d/hilab.conf)"

# Readiness: READY=1 once it serves, RELOADING=1 and READY=1 on HUP,
# STOPPING=1 on TERM, read from a real notify socket.
mkdir -p "$T/machines" "$T/empty"
python3 - "$T/notify.sock" >"$T/notify.txt" <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
s.settimeout(30)
try:
    while True:
        m = s.recv(4096).decode()
        print(m.replace("\n", " "), flush=True)
        if "STOPPING=1" in m:
            break
except socket.timeout:
    pass
EOF
listener=$!
wait_for 5 test -S "$T/notify.sock"
"$B/agents/hilab-agent" facts >"$T/facts.txt"
"$mkdb" "$T/h.db" "$T/facts.txt" >/dev/null
HILABD_LOG=$T/hilabd.log
t0=$(date +%s%3N)
NOTIFY_SOCKET=$T/notify.sock "$hilabd" --db "$T/h.db" --socket "$T/c.sock" \
    --machines "$T/empty" --catalog "$S/benchmarks" 2>"$T/hilabd.log" &
pid=$!
wait_for 10 grep -q READY=1 "$T/notify.txt"
ready=$(($(date +%s%3N) - t0))
check "hilabd says READY=1 with its status (in $ready ms)" \
    grep -q "READY=1 STATUS=0 machines, database $T/h.db" "$T/notify.txt"
"$hilab" --socket "$T/c.sock" --db "$T/h.db" wait --timeout 1ms 1 >/dev/null 2>&1
check "... once its control socket answers (wait does not exit 3)" test $? != 3
kill -HUP $pid
wait_for 10 test "$(grep -c READY=1 "$T/notify.txt")" -ge 2
check "HUP: RELOADING=1, then READY=1 again" bash -c \
    "grep -q RELOADING=1 '$T/notify.txt' && [ \$(grep -c READY=1 '$T/notify.txt') = 2 ]"
kill -TERM $pid
wait $pid
check "TERM: hilabd exits 0" test $? = 0
wait $listener
check "... having sent STOPPING=1" grep -q STOPPING=1 "$T/notify.txt"

# Completion, from the generated script, on a real database.
export HILAB_DB=$T/h.db HILAB_MACHINES=$T/machines HILAB_SOCKET=$T/no.sock HILAB_CATALOG=$S/benchmarks
cat >"$T/machines/lab1.yaml" <<'YAML'
name: lab1
kind: ssh
ssh: {host: 127.0.0.1, identity: /nonexistent/key, known_hosts: /nonexistent/kh}
YAML
"$hilab" machines set lab1 good >/dev/null
cat >"$T/hb.yaml" <<'YAML'
name: hb
machines: [lab1]
benchmarks:
  - name: hackbench
    params: {groups: [1], loops: 10}
YAML
"$hilab" sweep add nightly "$T/hb.yaml" --every 1d >/dev/null
# complete WORD...: what completion offers for the last word (sorted, one line).
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _hilab
	    printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' sh "$(at bash-completion/completions/hilab)" "$@"
}
PATH=$B/cli:$PATH
check "commands" test "$(complete_words hilab sw)" = "sweep "
check "subcommands" test "$(complete_words hilab sweep '')" = "add disable enable list rm show "
check "a command's options" test "$(complete_words hilab compare --st)" = "--statistic --style "
check "an option's choices, after = too" test "$(complete_words hilab compare --style = m)" = "markdown meansd "
check "machine names from --json machines list" test "$(complete_words hilab machines set '')" = "lab1 "
check "an argument's choices" test "$(complete_words hilab machines set lab1 m)" = "maintenance "
check "job ids from --json list" test "$(complete_words hilab status '')" = "$(sql "SELECT group_concat(id, ' ') || ' ' FROM (SELECT id FROM jobs ORDER BY CAST(id AS TEXT))")"
check "benchmark names from the catalog" test "$(complete_words hilab benchmarks show hack)" = "hackbench "
check "sweep names" test "$(complete_words hilab sweep show '')" = "nightly "
check "the --db on the line is the one asked" test "$(env -u HILAB_DB bash -c "$(declare -f complete_words at); D='$D'; complete_words hilab --db '$T/h.db' machines set ''")" = "lab1 "
daemon_log_on_failure
exit $((failed > 0))
