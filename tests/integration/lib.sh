# Test hosts for integration tests: each host is an OpenSSH sshd running
# in its own network namespace, reached over a veth pair.  Traffic only
# ever goes to the namespace's address.
#
#	. "$HILAB_SRCDIR/tests/integration/lib.sh"
#	lab_init			# root check, temp dir, EXIT trap
#	eval "$(lab_host_up h1)"	# sets HOST PORT LOGIN KEY KNOWN_HOSTS
#					# NETNS HOST_DIR AGENT_DIR_REMOTE
#	...
#	lab_host_down h1		# optional: lab_init's trap does it
#
# lab_host_up NAME PREFIX prints the variables with PREFIX in front, for
# several hosts in one test.  Host NAME keeps its files in $LAB_TMP/NAME.

LAB_TMP=${LAB_TMP:-}
LAB_LOCK=/run/hilab-lab.lock
. "$(dirname "${BASH_SOURCE[0]}")/../lib/skip.sh"

# Skips the test for a missing program, package or privilege, with a
# reason; in CI it fails (tests/lib/skip.sh).  A TAP test sets LAB_TAP=1
# first: its skip is a plan of none, as meson reads TAP.
lab_skip()
{
	if [ -n "${LAB_TAP:-}" ]; then
		skip_missing_tap "$@"
	fi
	skip_missing "$@"
}

# Fails the test with a message.
lab_fail()
{
	echo "FAIL: $*" >&2
	exit 1
}

# Checks what the harness needs, makes the temp dir, arms the teardown.
lab_init()
{
	local c

	[ "$(id -u)" = 0 ] ||
	    lab_skip "needs root (network namespaces and sshd)"
	[ -x /usr/sbin/sshd ] ||
	    lab_skip "/usr/sbin/sshd missing (apt-get install openssh-server)"
	for c in ip ssh-keygen pgrep flock; do
		command -v "$c" >/dev/null ||
		    lab_skip "$c missing (apt-get install iproute2" \
		    "openssh-client procps util-linux)"
	done
	ip netns list >/dev/null 2>&1 ||
	    lab_skip "cannot use network namespaces here"
	LAB_TMP=$(mktemp -d /tmp/hilab-lab.XXXXXX) || lab_fail "mktemp"
	chmod 755 "$LAB_TMP"
	mkdir -p /run/sshd
	chmod 755 /run/sshd
	trap lab_teardown EXIT
	trap 'exit 130' INT TERM HUP
	lab_reap_stale
}

# Removes namespaces left by test runs whose shell no longer exists.
lab_reap_stale()
{
	local ns pid

	for ns in $(ip netns list | awk '{ print $1 }'); do
		case $ns in
		hilab-t*-*) ;;
		*) continue ;;
		esac
		pid=${ns#hilab-t}
		pid=${pid%%-*}
		kill -0 "$pid" 2>/dev/null && continue
		lab_netns_kill "$ns"
		ip netns del "$ns" 2>/dev/null
	done
}

# Kills every process running inside namespace $1.
lab_netns_kill()
{
	local pids

	pids=$(ip netns pids "$1" 2>/dev/null)
	[ -n "$pids" ] && kill -KILL $pids 2>/dev/null
	return 0
}

# Picks a free 10.77.N.0/24 and creates namespace hilab-t<PID>-N for it;
# prints N.  Serialized with other test runs by a lock file.
lab_net_alloc()
{
	local n

	(
		flock 9
		for n in $(seq 1 254); do
			ip netns list | grep -q "^hilab-t[0-9]*-$n\\b" &&
			    continue
			ip -o -4 addr show | grep -q " 10\\.77\\.$n\\." &&
			    continue
			ip netns add "hilab-t$$-$n" || exit 1
			echo "$n"
			exit 0
		done
		exit 1
	) 9>"$LAB_LOCK"
}

# Writes the sshd configuration of host $1 (dir $2, address $3).  SHLVL=1
# keeps bash, started by sshd for each command, from sourcing the login
# user's ~/.bashrc: the test host is a bare stand-in, and a heavy .bashrc
# on the test machine would otherwise dominate every command's cost.
lab_sshd_config()
{
	cat >"$2/sshd_config" <<EOF
ListenAddress $3
Port 22
HostKey $2/host_key
PidFile $2/sshd.pid
AuthorizedKeysFile $2/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
UseDNS no
PrintMotd no
MaxStartups 100
MaxSessions 100
Subsystem sftp internal-sftp
LogLevel VERBOSE
SetEnv SHLVL=1
EOF
}

# Starts sshd for host $1 and waits until it listens (it writes its pid
# file once its socket is bound).  $2, if given, is a shell command run
# first in a mount namespace of sshd's own (mounts only its sessions see).
lab_sshd_start()
{
	local d=$LAB_TMP/$1 i

	rm -f "$d/sshd.pid"
	if [ -n "${2:-}" ]; then
		ip netns exec "$(cat "$d/netns")" unshare -m \
		    --propagation private sh -c "$2"' && exec /usr/sbin/sshd \
		    -D -f "$1" -E "$2"' sh "$d/sshd_config" "$d/sshd.log" \
		    </dev/null >/dev/null 2>>"$d/sshd.log" &
	else
		ip netns exec "$(cat "$d/netns")" /usr/sbin/sshd -D \
		    -f "$d/sshd_config" -E "$d/sshd.log" \
		    </dev/null >/dev/null 2>&1 &
	fi
	for i in $(seq 1 100); do
		[ -s "$d/sshd.pid" ] && return 0
		sleep 0.05
	done
	lab_fail "host $1: sshd did not start: $(tail -3 "$d/sshd.log")"
}

# Prints the pid of host $1's listening sshd.
lab_sshd_pid()
{
	cat "$LAB_TMP/$1/sshd.pid"
}

# Stops host $1's listening sshd (its open sessions stay).
lab_sshd_stop()
{
	local pid i

	pid=$(lab_sshd_pid "$1" 2>/dev/null) || return 0
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	rm -f "$LAB_TMP/$1/sshd.pid"
}

# Brings host $1 up and prints its variables (prefixed by $2).
lab_host_up()
{
	local name=$1 p=${2:-} d n ns hv nv

	d=$LAB_TMP/$name
	mkdir -p "$d/remote" || lab_fail "mkdir $d"
	n=$(lab_net_alloc) || lab_fail "no free 10.77.N.0/24 network"
	ns=hilab-t$$-$n
	hv=hl$$h$n
	nv=hl$$n$n
	echo "$ns" >"$d/netns"
	echo "$hv" >"$d/veth"
	echo "10.77.$n.2" >"$d/addr"
	ip link add "$hv" type veth peer name "$nv" netns "$ns" &&
	ip addr add "10.77.$n.1/24" dev "$hv" &&
	ip link set "$hv" up &&
	ip -n "$ns" addr add "10.77.$n.2/24" dev "$nv" &&
	ip -n "$ns" link set "$nv" up &&
	ip -n "$ns" link set lo up || lab_fail "host $name: network setup"
	ssh-keygen -q -t ed25519 -N '' -C "hilab-test-$name" \
	    -f "$d/host_key" || lab_fail "ssh-keygen"
	ssh-keygen -q -t ed25519 -N '' -C "hilab-test-client" \
	    -f "$d/client_key" || lab_fail "ssh-keygen"
	cp "$d/client_key.pub" "$d/authorized_keys"
	lab_sshd_config "$name" "$d" "10.77.$n.2"
	lab_known_hosts_line "$name" >"$d/known_hosts"
	lab_sshd_start "$name"
	cat <<EOF
${p}HOST=10.77.$n.2
${p}PORT=22
${p}LOGIN=root
${p}KEY=$d/client_key
${p}KNOWN_HOSTS=$d/known_hosts
${p}NETNS=$ns
${p}HOST_DIR=$d
${p}AGENT_DIR_REMOTE=$d/remote
EOF
}

# Prints the known_hosts line for host $1's current host key.
lab_known_hosts_line()
{
	local d=$LAB_TMP/$1

	echo "$(cat "$d/addr") $(cut -d' ' -f1,2 "$d/host_key.pub")"
}

# Gives host $1 a new host key and restarts its sshd; known_hosts keeps
# the old key.
lab_host_rekey()
{
	local d=$LAB_TMP/$1

	lab_sshd_stop "$1"
	rm -f "$d/host_key" "$d/host_key.pub"
	ssh-keygen -q -t ed25519 -N '' -C "hilab-test-$1-new" \
	    -f "$d/host_key" || lab_fail "ssh-keygen"
	lab_sshd_start "$1"
}

# Prints the pids of the sshd processes serving host $1's connections:
# each child of the listener (the privileged monitor) and its children
# that are sshd themselves (not the commands they run).
lab_host_session_pids()
{
	local listener mon

	listener=$(lab_sshd_pid "$1") || return 1
	for mon in $(pgrep -P "$listener"); do
		echo "$mon"
		pgrep -x -P "$mon" sshd
	done
}

# Cuts every ssh connection to host $1 by killing its sshd session
# processes, as a dropped network would; the commands they ran survive.
lab_host_cut()
{
	local pids

	pids=$(lab_host_session_pids "$1")
	[ -n "$pids" ] || return 1
	kill -KILL $pids
}

# lab_host_link NAME up|down: the host's side of its link, as a cable
# pulled: packets to it are dropped without a word, nothing is reset.
lab_host_link()
{
	local ns dev

	ns=$(cat "$LAB_TMP/$1/netns")
	dev=$(ip -n "$ns" -o link show | awk -F': ' '$2 != "lo" { print $2 }')
	ip -n "$ns" link set "${dev%%@*}" "$2"
}

# Tears host $1 down: every process in its namespace, the namespace, the
# veth pair (usually gone with the namespace).  Never fails, so a caller
# under "set -e" (scripts/demo.sh) ends with its own status.
lab_host_down()
{
	local d=$LAB_TMP/$1 ns

	[ -f "$d/netns" ] || return 0
	ns=$(cat "$d/netns")
	lab_sshd_stop "$1" || true
	lab_netns_kill "$ns" || true
	ip netns del "$ns" 2>/dev/null || true
	ip link del "$(cat "$d/veth")" 2>/dev/null || true
	rm -f "$d/netns"
}

# EXIT trap: brings every host down and removes the temp dir; exits with
# $1, or with the status the trap was entered with.
lab_teardown()
{
	local rc=${1:-$?} d pids=

	trap - EXIT
	if [ -n "$LAB_TMP" ] && [ -d "$LAB_TMP" ]; then
		# All at once: a namespace takes ~1 s to go (bench/scale.sh
		# has hundreds).
		for d in "$LAB_TMP"/*/; do
			[ -f "$d/netns" ] || continue
			lab_host_down "$(basename "$d")" &
			pids+=" $!"
		done
		[ -z "$pids" ] || wait $pids
		if [ "$rc" != 0 ] && [ "$rc" != 77 ] && [ -n "${LAB_KEEP:-}" ]
		then
			echo "kept $LAB_TMP" >&2
		else
			rm -rf "$LAB_TMP"
		fi
	fi
	exit "$rc"
}
