# shellcheck shell=bash
# Shared by bench/run's VM parts (vmboot.sh, lava.sh): the lab up, a
# scratch hilabd with the lab's 4-vCPU VM (vm4) in its inventory, jobs of
# one command on it, and a kernel panic's figure.  Root.
#
#	. "$HILAB_SRCDIR/bench/vmlib.sh"
#	vm_lab TAG			# $T, hilabd started, vm4
#	vm_job NAME 'sh command' >FILE	# a job of one run of it on vm4
#	vm_panicked FILE		# ms: panic line to the run failed
. "$HILAB_SRCDIR/bench/lib.sh"

URI=qemu:///system

# vm_lab TAG: the lab up, its variables exported, a scratch hilabd ($T,
# tests/lib/hilabd.sh) with vm4 in its inventory; at exit the daemon,
# hilab-vm4 and the domains named in $VM_DOMAINS go, and $T.
vm_lab() {
	local labenv

	labenv=$("$HILAB_SRCDIR/scripts/lab.sh" up) || exit 1
	eval "$labenv"
	. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
	daemon_scratch "$1"
	cp "$HILAB_LAB_DIR/machines/vm4.yaml" "$HILAB_MACHINES/"
	trap vm_cleanup EXIT
	daemon_start || exit 1
}

vm_cleanup() {
	local d

	daemon_stop KILL
	for d in hilab-vm4 ${VM_DOMAINS:-}; do
		virsh -q -c "$URI" destroy "$d" >/dev/null 2>&1
		virsh -q -c "$URI" undefine "$d" >/dev/null 2>&1
	done
	rm -rf "$T"
}

# vm_ssh KEY: the value of vm4's ssh KEY (host, port, identity,
# known_hosts) in its machine file.
vm_ssh() { sed -n "s/^ *$1: //p" "$HILAB_MACHINES/vm4.yaml"; }

# vm_job NAME COMMAND: a job file on stdout, one run of `sh -c COMMAND`
# on vm4 with the lab's base kernel, its output's t=VALUE a sample.
vm_job() {
	cat <<YAML
name: $1
machines: [vm4]
kernels: [{name: base, image: $HILAB_LAB_KERNEL_BASE}]
benchmarks:
  - name: $1
    command: [sh, -c, '$2']
    parser: keyvalue
    metrics: [{name: t, unit: s, direction: lower}]
    iterations: 1
    warmups: 0
YAML
}

# vm_done ID: waits for job ID to end, then for hilab-vm4 to go, as it
# does once its job is done with; fails as `hilab wait` does (the job
# failed or did not end).
vm_done() {
	local rc=0

	"$hilab" wait --timeout 300 "$1" >/dev/null || rc=$?
	for _ in $(seq 1 100); do
		virsh -q -c "$URI" domstate hilab-vm4 >/dev/null 2>&1 || break
		sleep 0.1
	done
	return $rc
}

# printk_at FILE WALL: on stdout, the wall time (s) at which the first
# "Kernel panic - not syncing" line of console FILE was printed, given
# WALL (s), the time its last line with a printk stamp was printed: WALL
# less the printk time from the panic line to that last line.
printk_at() {
	awk -v wall="$2" '
	/\[ *[0-9]+\.[0-9]+\]/ {
		s = substr($0, index($0, "[") + 1)
		t = substr(s, 1, index(s, "]") - 1) + 0
		if (panic == "" && /Kernel panic - not syncing/)
			panic = t
		last = t
	}
	END {
		if (panic == "")
			exit 1
		printf "%.3f\n", wall - (last - panic)
	}' "$1"
}

# vm_panicked FILE: submits job FILE, whose run panics the kernel, and
# prints the ms from the panic line on vm4's console to the run failed,
# then to `hilab wait` returning.  The line's time: the console file's
# last write less the printk time from the line to its last line.
vm_panicked() {
	local id console at back

	id=$(submit "$1")
	"$hilab" wait --timeout 300 "$id" >/dev/null # the run fails
	back=$(now_ms)
	vm_done "$id"
	[ "$(sql "SELECT COUNT(*) FROM runs WHERE job = $id AND error LIKE '%panicked during the run%'")" = 1 ] ||
	    { echo "vm: the panic job $id: $(sql "SELECT error FROM runs WHERE job = $id")" >&2; return 1; }
	console=$(ls -t "$HILAB_LAB_DIR"/console/vm4-*.log | head -n 1)
	at=$(printk_at "$console" "$(stat -c %.3Y "$console")") || return 1
	awk -v at="$at" -v end="$(sql "SELECT finished_at FROM runs WHERE job = $id")" \
	    -v back="$back" 'BEGIN { printf "%d %d\n", end - at * 1000, back - at * 1000 }'
}
