#!/usr/bin/env bash
# Kernels built from git + a series through hilabd, where the build fails or
# is stopped: real git repositories and series made here, real make runs.
# A patch that does not apply and a tree that is no kernel tree fail the job
# with the cause and queue no run (hilab kernels build says the same); a
# build is ended at once by hilab cancel and by SIGTERM of hilabd.  The
# jobs' machine is never reached: its ssh port is a listener that counts
# connections, and none may come.
set -u
. "$HILAB_SRCDIR/tests/lib/skip.sh"
for tool in git make gcc sqlite3 python3 pgrep ps; do
	command -v $tool >/dev/null || skip_missing "$tool not installed"
done
. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
daemon_scratch kbuild
export HILAB_KERNEL_CACHE=$T/cache HILAB_KERNEL_WORK=$T/work
SUBMIT_ERR=$T/submit.err
GIT="git -c user.name=Dev -c user.email=dev@localhost"
GIT="$GIT -c init.defaultBranch=main"
# The recipe of the slow tree's defconfig: unusual, so found by name.
SLOW="sleep 47"
listener=

# Prints the processes working in the build worktrees (make, sh, sleep).
build_pids() {
	local p cwd

	for p in /proc/[0-9]*; do
		cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
		case $cwd in "$T/work"*) echo "${p#/proc/}" ;; esac
	done
}

# Prints the build's "sleep 47" processes.
slow_pids() {
	local p

	for p in $(pgrep -x -f "$SLOW"); do
		build_pids | grep -qx "$p" && echo "$p"
	done
}

# alive PID: the process exists and is no zombie.
alive() {
	local s

	s=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${s#Z}" = "$s" ]
}

# none_alive PID...: within 3 s none of the processes is left; there
# must be some to wait for.
none_alive() {
	local p left

	[ $# -gt 0 ] || { echo "# no process to wait for"; return 1; }
	for _ in $(seq 1 30); do
		left=
		for p in "$@"; do alive "$p" && left="$left $p"; done
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "# still running:$left"
	ps -o pid=,stat=,args= -p "${left# }" | sed 's/^/# /'
	return 1
}

cleanup() {
	local rc=$? p

	daemon_stop KILL
	for p in $(build_pids); do kill -KILL "$p" 2>/dev/null; done
	[ -n "$listener" ] && kill "$listener" 2>/dev/null
	rm -rf "$T"
	exit $rc
}
trap cleanup EXIT

# A listener on a free port of 127.0.0.1 that logs each connection.
python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    with open(sys.argv[1], "a") as f:
        f.write("connection\n")
    c.close()
' "$T/connections" >"$T/port" &
listener=$!
for _ in $(seq 1 300); do [ -s "$T/port" ] && break; sleep 0.1; done
port=$(cat "$T/port")
[ -n "$port" ] || { echo "Bail out! the listener did not start"; exit 1; }
mkdir -p "$HILAB_MACHINES"
touch "$T/id" "$T/known_hosts"
cat >"$HILAB_MACHINES/demo.yaml" <<YAML
name: demo
kind: ssh
ssh:
  host: 127.0.0.1
  port: $port
  identity: $T/id
  known_hosts: $T/known_hosts
  connect_timeout: 2s
boot: {method: kexec, known_good: 6.1.0-57-amd64}
YAML

# tree DIR: a repository of two files, no Makefile; prints the base commit.
tree() {
	$GIT init -q "$1" && (cd "$1" &&
	    printf 'a1\na2\na3\n' >a.txt && printf 'b1\nb2\nb3\n' >b.txt &&
	    git add . && $GIT commit -q -m base && git rev-parse HEAD)
}

# series DIR MBOX: two patches on the tree (a.txt, then b.txt) as an mbox;
# the tree's branch is left at its base.
series() {
	(cd "$1" && git checkout -q -b series &&
	    sed -i s/a2/A2/ a.txt && $GIT commit -q -am "a: shout a2" &&
	    sed -i s/b2/B2/ b.txt && $GIT commit -q -am "b: shout b2" &&
	    git format-patch -q --cover-letter --stdout HEAD~2 >"$2" &&
	    git checkout -q main)
}

# job NAME GIT BASE [SERIES]: a job of the cumulative variants of a series
# (or of the base alone) on "demo"; prints the file's path.
job() {
	{
		printf 'name: %s\nmachines: [demo]\nkernels:\n' "$1"
		printf '  - git: %s\n    base: %s\n' "$2" "$3"
		[ -n "${4:-}" ] && printf '    series: %s\n' "$4"
		printf '    variants: cumulative\n'
		printf 'benchmarks:\n  - name: hackbench\n'
		printf '    params: {groups: 1, loops: 10}\n'
	} >"$T/$1.yaml"
	echo "$T/$1.yaml"
}

# wait_state JOB STATE SECONDS: until the job is in STATE.
wait_state() {
	for _ in $(seq 1 $(($3 * 10))); do
		[ "$(sql "SELECT state FROM jobs WHERE id = $1")" = "$2" ] &&
		    return 0
		sleep 0.1
	done
	return 1
}

# wait_slow: until the build runs the slow defconfig (60 s at most).
wait_slow() {
	for _ in $(seq 1 600); do
		[ -n "$(slow_pids)" ] && return 0
		sleep 0.1
	done
	return 1
}

# A tree where patch 2 does not apply: the series was made on "base", the
# job names "moved", where b.txt has changed since.
tree "$T/moved" >/dev/null || { echo "Bail out! git"; exit 1; }
series "$T/moved" "$T/moved.mbox" || { echo "Bail out! git"; exit 1; }
(cd "$T/moved" && printf 'b1\nb2 reworded\nb3\n' >b.txt &&
    $GIT commit -q -am "b: reword b2") || { echo "Bail out! git"; exit 1; }
# A tree that is no kernel tree (no Makefile), with a series that applies.
plain=$(tree "$T/plain") || { echo "Bail out! git"; exit 1; }
series "$T/plain" "$T/plain.mbox" || { echo "Bail out! git"; exit 1; }
# A tree whose defconfig takes long: make defconfig runs a sleep.
slow=$(tree "$T/slow") || { echo "Bail out! git"; exit 1; }
(cd "$T/slow" && printf 'defconfig:\n\t%s\n\techo CONFIG_SMP=y >.config\n' \
    "$SLOW" >Makefile && git add Makefile &&
    $GIT commit -q -m "a defconfig that takes long") ||
    { echo "Bail out! git"; exit 1; }
slow=$(git -C "$T/slow" rev-parse HEAD)

echo "1..21"
daemon_start || exit 1

# (a) Patch 2 does not apply: the job fails naming it and the mbox.
a=$(submit "$(job moved "$T/moved" main "$T/moved.mbox")")
[ -n "$a" ] || { echo "Bail out! submit: $(cat "$SUBMIT_ERR")"; exit 1; }
wait_state "$a" failed 60
check "job $a with a patch that does not apply failed" \
    test "$(sql "SELECT state FROM jobs WHERE id = $a")" = failed
error=$(sql "SELECT error FROM jobs WHERE id = $a")
sed "s/^/# error: /" <<<"$error" | head -8
check "its error names patch 2/2" grep -q "patch 2/2" <<<"$error"
check "its error names the mbox" grep -qF "$T/moved.mbox" <<<"$error"
check "its events hold the build's progress" test \
    "$(sql "SELECT COUNT(*) FROM events WHERE job = $a AND
    message LIKE 'kernel build: %'")" -ge 2
check "no run queued for job $a" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $a")" = 0

# (b) No kernel tree: make's own message, under the variant's name.
b=$(submit "$(job plain "$T/plain" "$plain" "$T/plain.mbox")")
wait_state "$b" failed 60
check "job $b on a tree without a Makefile failed" \
    test "$(sql "SELECT state FROM jobs WHERE id = $b")" = failed
error=$(sql "SELECT error FROM jobs WHERE id = $b")
sed "s/^/# error: /" <<<"$error" | head -8
check "its error names the variant \"base\"" \
    grep -qF 'variant "base": defconfig failed' <<<"$error"
check "its error carries make's message" \
    grep -qF "No rule to make target 'defconfig'" <<<"$error"
check "no run queued for job $b" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $b")" = 0

# (c) hilab kernels build says the same, and fails.
"$hilab" kernels build "$T/plain.yaml" >"$T/build.out" 2>"$T/build.err"
check "hilab kernels build of it exits non-zero" test $? != 0
check "and names the variant and make's message" \
    grep -qF 'variant "base": defconfig failed' "$T/build.err"
check "and carries make's message" \
    grep -qF "No rule to make target 'defconfig'" "$T/build.err"

# (d) Cancel while make runs: the job ends cancelled, the build is gone.
d=$(submit "$(job cancelled "$T/slow" "$slow")")
wait_slow
sleeps=$(slow_pids)
builder=$(pgrep -P "$daemon_pid")
check "job $d is building (make defconfig runs)" test -n "$sleeps"
t0=$(date +%s%N)
"$hilab" cancel "$d" >/dev/null
wait_state "$d" cancelled 10
took=$((($(date +%s%N) - t0) / 1000000))
echo "# cancelled after $took ms"
check "job $d cancelled within 5 s" test "$(sql "SELECT state FROM jobs
    WHERE id = $d")" = cancelled -a "$took" -lt 5000
check "the build's sleep is gone" none_alive $sleeps
check "no process left in the build tree" test -z "$(build_pids)"
check "the build process is gone" none_alive $builder

# (e) SIGTERM of hilabd while make runs: it exits, the build with it.
e=$(submit "$(job stopped "$T/slow" "$slow")")
wait_slow
sleeps=$(slow_pids)
builder=$(pgrep -P "$daemon_pid")
t0=$(date +%s%N)
kill -TERM "$daemon_pid"
for _ in $(seq 1 100); do alive "$daemon_pid" || break; sleep 0.1; done
took=$((($(date +%s%N) - t0) / 1000000))
echo "# hilabd exited $took ms after SIGTERM (job $e building: $sleeps)"
check "hilabd exits within 5 s of SIGTERM during a build" \
    test -n "$sleeps" -a "$took" -lt 5000
daemon_stop KILL
check "no build process left after hilabd stopped" \
    none_alive $sleeps $builder
check "no process left in the build tree" test -z "$(build_pids)"

check "nothing connected to the machine" \
    test ! -e "$T/connections" -a -d "/proc/$listener"
daemon_log_on_failure
exit $((failed > 0))
