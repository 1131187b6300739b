# Shared by the lab tests that run hilabd on a copy of one of the lab's
# VMs under a name and loopback address of its own, so that other lab
# tests may run beside them.  Needs root; brings the lab up (scripts/lab.sh
# up, idempotent) and tears the copy down on exit, whatever happened.
#
#	. "$HILAB_SRCDIR/tests/lib/labvm.sh"
#	labvm_init TAG			# the lab's env, $T, $URI, the trap
#	labvm_copy vm32 NAME 127.0.0.14	# machine file NAME: $VM, $DOMAIN, $ADDR
. "$HILAB_SRCDIR/tests/lib/skip.sh"

# labvm_init TAG: the lab's variables, the test's scratch directory $T
# (daemon_scratch TAG, tests/lib/hilabd.sh) and the exit trap.
labvm_init() {
	local labenv

	[ "$(id -u)" = 0 ] || skip_missing "needs root (libvirtd, qemu:///system)"
	labenv=$("$HILAB_SRCDIR/scripts/lab.sh" up) ||
	    { echo "Bail out! lab.sh up"; exit 1; }
	eval "$labenv"
	. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
	daemon_scratch "$1"
	URI=qemu:///system
	DOMAIN=
	trap labvm_cleanup EXIT
}

# labvm_copy SRC NAME ADDR: the lab's machine file SRC as machine NAME at
# loopback address ADDR, with SRC's known_hosts line for that address.
labvm_copy() {
	local src=$HILAB_LAB_DIR/machines/$1.yaml old

	VM=$2 ADDR=$3 DOMAIN=hilab-$2
	old=$(sed -n 's/^  host: //p' "$src")
	mkdir -p "$HILAB_MACHINES"
	sed -n "s/^\[${old//./\\.}\]:/[$ADDR]:/p" \
	    "$HILAB_LAB_DIR/keys/known_hosts" >"$T/known_hosts"
	sed -e "s/^name: .*/name: $VM/" -e "s/^\(  host: \).*/\1$ADDR/" \
	    -e "s|^\(  known_hosts: \).*|\1$T/known_hosts|" \
	    "$src" >"$HILAB_MACHINES/$VM.yaml"
}

# The state of the copy's domain, or "absent".
labvm_state() {
	virsh -q -c "$URI" domstate "$DOMAIN" 2>/dev/null || echo absent
}

# The exit trap: hilabd stopped, the copy's domain gone, the scratch
# directory removed; hilabd's log shown when the test failed.
labvm_cleanup() {
	local rc=$?

	daemon_stop TERM
	if [ -n "$DOMAIN" ]; then
		virsh -q -c "$URI" destroy "$DOMAIN" >/dev/null 2>&1
		virsh -q -c "$URI" undefine "$DOMAIN" >/dev/null 2>&1
	fi
	[ $rc = 0 ] || daemon_log_on_failure
	rm -rf "$T"
	exit $rc
}
