# Shared by the tests that drive hilabd and the hilab CLI: TAP checks, the
# database, the daemon's start and stop, job submission.  Set HILAB_DB,
# HILAB_SOCKET and HILABD_LOG (the daemon's stderr) before daemon_start.
#
#	. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
#	check "the job is done" test "$(sql "SELECT state ...")" = done
#	...
#	exit $((failed > 0))

hilab=$HILAB_BUILDDIR/cli/hilab
hilabd=$HILAB_BUILDDIR/hilabd/hilabd
n=0
failed=0
daemon_pid=

# daemon_scratch TAG: the test's directory $T (/tmp/hilab-TAG.*, readable
# by qemu's user) with the database, control socket, log and an empty
# inventory of its own.
daemon_scratch() {
	T=$(mktemp -d "/tmp/hilab-$1.XXXXXX") ||
	    { echo "Bail out! mktemp"; exit 1; }
	chmod 755 "$T"
	export HILAB_DB=$T/hilab.db HILAB_SOCKET=$T/control.sock
	export HILAB_MACHINES=$T/machines
	HILABD_LOG=$T/hilabd.log
	mkdir -p "$HILAB_MACHINES"
}

# daemon_lab_host NAME [YAML]: the test's database, control socket and log
# in $LAB_TMP and an inventory of NAME, the namespace host lab_host_up
# brought up (kind ssh); YAML (lines ending in a newline) goes before
# its "ssh:" key.
daemon_lab_host() {
	export HILAB_DB=$LAB_TMP/hilab.db HILAB_SOCKET=$LAB_TMP/control.sock
	export HILAB_MACHINES=$LAB_TMP/machines
	HILABD_LOG=$LAB_TMP/hilabd.log
	mkdir -p "$HILAB_MACHINES"
	machine_yaml "$1" "" "${2:-}"
}

# machine_yaml NAME [PREFIX [YAML]]: $HILAB_MACHINES/NAME.yaml, kind ssh,
# for the host whose variables lab_host_up printed (with PREFIX); YAML
# goes before its "ssh:" key.
machine_yaml() {
	local h=${2:-}HOST k=${2:-}KEY kh=${2:-}KNOWN_HOSTS a=${2:-}AGENT_DIR_REMOTE

	cat >"$HILAB_MACHINES/$1.yaml" <<YAML
name: $1
kind: ssh
${3:-}ssh:
  host: ${!h}
  identity: ${!k}
  known_hosts: ${!kh}
  agent_dir: ${!a}
YAML
}

# rc CODE COMMAND...: the command exits CODE; its stdout and stderr are
# left in $T/out and $T/err (the first lines of stderr are shown if not).
rc() {
	local want=$1 got

	shift
	"$@" >"$T/out" 2>"$T/err"
	got=$?
	[ "$got" = "$want" ] && return 0
	echo "# exit $got, not $want: $*"
	sed 's/^/#   /' "$T/err" | head -5
	return 1
}

# check DESCRIPTION COMMAND...: one TAP line for the command's outcome.
check() {
	local d=$1

	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		failed=$((failed + 1))
	fi
}

# sql QUERY: the test's database through the sqlite3 shell.
sql() {
	sqlite3 "$HILAB_DB" "$@"
}

# Starts hilabd and waits for its control socket.
daemon_start() {
	"$hilabd" 2>>"$HILABD_LOG" &
	daemon_pid=$!
	for _ in $(seq 1 100); do
		[ -S "$HILAB_SOCKET" ] && return 0
		sleep 0.05
	done
	echo "# hilabd did not start: $(tail -3 "$HILABD_LOG")"
	return 1
}

# daemon_stop SIGNAL: signals hilabd and reaps it.
daemon_stop() {
	[ -n "$daemon_pid" ] || return 0
	kill -"$1" "$daemon_pid" 2>/dev/null
	wait "$daemon_pid" 2>/dev/null
	daemon_pid=
}

# submit FILE: queues a job and prints its id (stderr to $SUBMIT_ERR).
submit() {
	"$hilab" --json submit "$1" 2>>"${SUBMIT_ERR:-/dev/null}" |
	    sed -n 's/.*"job": *\([0-9]*\).*/\1/p'
}

# hackbench_job NAME MACHINES ROUNDS KERNELS-YAML: submits $T/NAME.yaml,
# hackbench (2 groups, 50 loops, 2 iterations after a warmup) on MACHINES
# (a YAML list's items), its kernels alternating round by round; prints
# its id.
hackbench_job() {
	cat >"$T/$1.yaml" <<YAML
name: $1
machines: [$2]
kernels:
$4
rounds: $3
order: alternate
benchmarks:
  - name: hackbench
    params: {groups: 2, loops: 50}
    iterations: 2
    warmups: 1
YAML
	submit "$T/$1.yaml"
}

# Prints the tail of the daemon's log as TAP comments when a check failed.
daemon_log_on_failure() {
	[ "$failed" = 0 ] && return 0
	echo "# hilabd log:"
	tail -40 "$HILABD_LOG" | sed 's/^/# /'
}

# Stops hilabd and tears the lab down, keeping the test's exit status
# (lab_teardown of tests/integration/lib.sh reads $?).
daemon_cleanup() {
	local rc=$?

	daemon_stop KILL
	(exit $rc)
	lab_teardown
}

# wait_for SECONDS COMMAND...: until the command succeeds.
wait_for() {
	local end=$(($(date +%s) + $1))

	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
}

# until_true TENTHS COMMAND...: runs the command every 0.1 s until it
# succeeds or TENTHS tries have failed.
until_true() {
	local i=$1

	shift
	while [ "$i" -gt 0 ]; do
		"$@" && return 0
		sleep 0.1
		i=$((i - 1))
	done
	return 1
}
