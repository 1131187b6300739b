#!/usr/bin/env bash
# Power control through a real IPMI BMC: openipmi's ipmi_sim on 127.0.0.1,
# whose chassis powers "the board", a lab host (sshd in a network
# namespace).  Powered off, every process in the namespace is killed; powered
# on, the namespace's sshd starts again after a short boot.  The hilab CLI
# switches it; hilabd power-cycles it when it hangs mid-job and runs the
# interrupted run again; a board that never comes back leaves the machine
# bad and the run failed naming the host and the power cycle.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
. "$HILAB_SRCDIR/scripts/bmc.sh"
for c in ipmi_sim ipmitool; do
	command -v "$c" >/dev/null ||
	    lab_skip "$c missing (apt-get install openipmi ipmitool)"
done
command -v sqlite3 >/dev/null || lab_skip "sqlite3 missing (apt-get install sqlite3)"
lab_init
eval "$(lab_host_up board)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
export HILAB_DB=$LAB_TMP/hilab.db HILAB_SOCKET=$LAB_TMP/control.sock
HILABD_LOG=$LAB_TMP/hilabd.log
export HILAB_MACHINES=$LAB_TMP/machines
BMC_DIR=$LAB_TMP/bmc
BOOT_DELAY=2
bmc_pid=

# Stops the BMC and the board's power script, then the daemon and hosts.
power_cleanup() {
	local rc=$?

	[ -n "$bmc_pid" ] && kill -KILL "$bmc_pid" 2>/dev/null
	[ -s "$BMC_DIR/board.pid" ] && kill -TERM "$(cat "$BMC_DIR/board.pid")" 2>/dev/null
	daemon_stop KILL
	(exit $rc)
	lab_teardown
}
trap power_cleanup EXIT

# The board's power: ipmi_sim runs it at power on and sends it SIGTERM at
# power off.  It kills everything in the namespace when it goes.
board_script() {
	cat <<EOF
#!/bin/bash
ns=$NETNS
d=$HOST_DIR
echo \$\$ >"$BMC_DIR/board.pid"
trap 'kill \$nap 2>/dev/null; kill -KILL \$(ip netns pids \$ns) 2>/dev/null; echo "off \$(date +%s.%N)" >>"$BMC_DIR/power.log"; exit 0' TERM
echo "on \$(date +%s.%N)" >>"$BMC_DIR/power.log"
sleep $BOOT_DELAY & nap=\$!
wait \$nap
if [ ! -e "$BMC_DIR/broken" ]; then
	rm -f "\$d/sshd.pid"
	ip netns exec \$ns /usr/sbin/sshd -D -f "\$d/sshd_config" \\
	    -E "\$d/sshd.log" </dev/null >/dev/null 2>&1 &
fi
while :; do
	sleep 3600 & nap=\$!
	wait \$nap
done
EOF
}

# Writes the BMC's configuration for LAN port $1 (its serial port: $1 + 1).
bmc_config() {
	mkdir -p "$BMC_DIR/state"
	board_script >"$BMC_DIR/board.sh"
	chmod 755 "$BMC_DIR/board.sh"
	bmc_write_config "$BMC_DIR" board "$1" "$BMC_DIR/board.sh" true 2 3
	printf 'wrong\n' >"$BMC_DIR/badpassword"
	chmod 600 "$BMC_DIR/badpassword"
}

# ipmitool against the BMC, as an operator would run it.
bmc_tool() {
	ipmitool -I lanplus -C 3 -H 127.0.0.1 -p "$BMC_PORT" -U lab \
	    -f "$BMC_DIR/password" "$@"
}

# Starts ipmi_sim on a free port and waits until it answers.
bmc_start() {
	local port

	for _ in 1 2 3; do
		port=$(bmc_free_port) || break
		BMC_PORT=$port
		bmc_config "$port"
		ipmi_sim -c "$BMC_DIR/lan.conf" -f "$BMC_DIR/lab.emu" \
		    -s "$BMC_DIR/state" -n </dev/null >"$BMC_DIR/sim.log" 2>&1 &
		bmc_pid=$!
		for _ in $(seq 1 50); do
			bmc_tool chassis power status >/dev/null 2>&1 && return 0
			sleep 0.1
		done
		kill -KILL "$bmc_pid" 2>/dev/null
		bmc_pid=
	done
	lab_fail "ipmi_sim did not start: $(tail -3 "$BMC_DIR/sim.log")"
}

# True if the board answers ssh.
board_ssh() {
	ssh -q -i "$KEY" -o UserKnownHostsFile="$KNOWN_HOSTS" \
	    -o BatchMode=yes -o ConnectTimeout=2 "root@$HOST" true 2>/dev/null
}

# Waits until the board answers ssh (up to $1 s); prints the seconds taken.
board_wait_up() {
	local t0=$(date +%s.%N)

	for _ in $(seq 1 $(($1 * 5))); do
		if board_ssh; then
			echo "$(date +%s.%N) - $t0" | bc
			return 0
		fi
		sleep 0.2
	done
	return 1
}

# True if process $1 is gone (a zombie nobody reaps counts as gone).
proc_gone() {
	local st

	st=$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" \
	    2>/dev/null)
	test -z "$st" -o "$st" = Z
}

# True if nothing runs in the board's namespace.
board_dead() {
	test -z "$(ip netns pids "$NETNS")"
}

# The board, powered on at the BMC's start, replaces lab_host_up's sshd.
lab_sshd_stop board
bmc_start
board_wait_up 10 >/dev/null || lab_fail "the board did not come up"

mkdir -p "$HILAB_MACHINES"
# machine_file PASSWORD_FILE: the board with its BMC.
machine_file() {
	cat >"$HILAB_MACHINES/board.yaml" <<YAML
name: board
kind: ssh
ssh:
  host: $HOST
  identity: $KEY
  known_hosts: $KNOWN_HOSTS
  agent_dir: $AGENT_DIR_REMOTE
  connect_timeout: 2s
  reconnect_for: 5s
power:
  boot_timeout: 15s
  ipmi:
    host: 127.0.0.1
    port: $BMC_PORT
    user: lab
    password_file: $1
YAML
}
machine_file "$BMC_DIR/password"

echo "1..26"

# The CLI against the BMC.
out=$("$hilab" machines power board status)
check "status of a running board: on" test $? = 0 -a "$out" = "board: on"
"$hilab" machines check >"$LAB_TMP/check.out"
check "machines check prints the power section with its defaults" \
    grep -q "interface: lanplus" "$LAB_TMP/check.out"
"$hilab" machines power board off >/dev/null
check "power off exits 0" test $? = 0
sleep 0.5
check "off: nothing left running in the board's namespace" board_dead
check "off: the board does not answer ssh" test "$(board_ssh && echo up)" = ""
check "status reads off" test "$("$hilab" machines power board status)" = "board: off"
"$hilab" machines power board on >/dev/null
check "power on exits 0" test $? = 0
up=$(board_wait_up 15)
check "on: the board answers ssh again" test -n "$up"
echo "# power on to ssh up: ${up:-never} s"
old=$(cat "$HOST_DIR/sshd.pid")
t0=$(date +%s.%N)
"$hilab" machines power board cycle >/dev/null
check "power cycle exits 0" test $? = 0
check "cycle: the board's sshd went away" proc_gone "$old"
up=$(board_wait_up 15)
check "cycle: the board answers ssh again" test -n "$up"
echo "# power cycle to ssh up: $(echo "$(date +%s.%N) - $t0" | bc) s"
check "cycle: a new sshd" test "$(cat "$HOST_DIR/sshd.pid")" != "$old"

machine_file "$BMC_DIR/badpassword"
"$hilab" machines power board status 2>"$LAB_TMP/bad.err"
check "a bad password exits 1" test $? = 1
check "its error names the machine, the BMC and ipmitool's reason" \
    grep -q "^hilab: machine \"board\": BMC 127.0.0.1:$BMC_PORT: ipmitool: .*RMCP+ session" "$LAB_TMP/bad.err"
check "the password is in no message" test "$(grep -c wrong "$LAB_TMP/bad.err")" = 0
machine_file "$BMC_DIR/password"

# job_file NAME ITERATIONS: a hackbench job on the board.
job_file() {
	cat >"$LAB_TMP/$1.yaml" <<YAML
name: $1
machines: [board]
benchmarks:
  - name: hackbench
    params: {groups: 2, loops: 1500}
    iterations: $2
    warmups: 0
YAML
	echo "$LAB_TMP/$1.yaml"
}

# wait_results JOB N: until the job has stored N results (60 s at most).
wait_results() {
	for _ in $(seq 1 600); do
		[ "$(sql "SELECT COUNT(*) FROM run_results rr JOIN runs r
		    ON r.id = rr.run WHERE r.job = $1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# The board hangs mid-job: hilabd power-cycles it and runs the run again.
daemon_start
a=$(submit "$(job_file hang 6)")
wait_results "$a" 2
ons=$(grep -c '^on ' "$BMC_DIR/power.log")
hung=$(date +%s%3N)
kill -KILL $(ip netns pids "$NETNS")
echo "# the board hangs (powered on, nothing running) after $(sql "SELECT COUNT(*) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $a") results"
"$hilab" wait --timeout 180 "$a" >/dev/null
state=$(sql "SELECT state FROM jobs WHERE id = $a")
echo "# job $a ended $state"
check "the worker power-cycled the board through its BMC" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE job = $a AND message LIKE '%does not answer%power cycle through BMC 127.0.0.1:$BMC_PORT'")" = 1
check "the BMC powered it on again" test "$(grep -c '^on ' "$BMC_DIR/power.log")" = $((ons + 1))
check "the board came back and answers ssh" board_ssh
check "the interrupted run failed, to be run again" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $a AND state = 'failed' AND error LIKE 'interrupted: its host was power-cycled; run again as run %'")" = 1
check "the run done again with all its 6 samples" \
    test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $a AND r.state = 'done' AND s.metric = 'time'")" = 6
check "the failed run points at its new run" \
    test "$(sql "SELECT COUNT(*) FROM runs o JOIN runs n ON n.id = o.retried_as WHERE o.job = $a AND n.state = 'done'")" = 1
check "job $a ended done: a run done again does not fail it" \
    test "$state" = done
"$hilab" --json compare --job "$a" >"$LAB_TMP/power-compare.json" 2>/dev/null
check "tables count the new run's 6 samples only" \
    grep -q '"n": 6' "$LAB_TMP/power-compare.json"
detect=$(sql "SELECT time FROM events WHERE job = $a AND time >= $hung AND message LIKE '%does not answer%' ORDER BY id LIMIT 1")
echo "# hang to power cycle: $(((detect - hung)))ms"
sql "SELECT message FROM events WHERE job = $a AND message LIKE 'host \"board\"%'" | sed 's/^/# event: /'

# A board whose power on never brings sshd back: the machine goes bad.
touch "$BMC_DIR/broken"
kill -KILL $(ip netns pids "$NETNS")
b=$(submit "$(job_file broken 2)")
"$hilab" wait --timeout 120 "$b" >/dev/null
check "job $b on a board that does not come back ends failed" \
    test "$(sql "SELECT state FROM jobs WHERE id = $b")" = failed
check "its run failed naming the host, the power cycle and the wait" \
    test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $b AND state = 'failed' AND error LIKE 'host \"board\" ($HOST:22) does not answer 1_ s after a power cycle through BMC 127.0.0.1:$BMC_PORT: %'")" = 1
check "the machine's health is bad" \
    test "$(sql "SELECT health FROM machines WHERE name = 'board'")" = bad
sql "SELECT error FROM runs WHERE job = $b" | sed 's/^/# error: /'
daemon_log_on_failure
exit $((failed > 0))
