# Shared by the tests that drive bare-metal stand-ins (scripts/lab-server.sh):
# the lab and a hilabd of the test's own, a server brought up for the test
# and taken down after it, ssh to it as an operator would, and the checks
# every two-kernel job on one gets.
#
#	. "$HILAB_SRCDIR/tests/lib/server.sh"
#	server_test_init TAG PROGRAM...		# lab env, $T, hilabd.sh, trap
#	server_grub_init TAG [PROGRAM...]	# the same, the grub disk built
#	server_up NAME KIND ADDR [S C T MEM]	# sets SERVER_* and $T/machines
#	server_ssh CMD...			# on the server, as root
#	server_job NAME ROUNDS KERNELS		# a job file for it
#	server_submit FILE			# queued: $JOB, else comments
#	server_series WORK			# $SRC, $T/good.mbox to build from
#	server_fragment NAME			# a config fragment in $T
#	built_job NAME FRAGMENTS KEYS		# base and patch 1, built
#	built_kernel_checks JOB			# what a built job shows
#
# HILAB_KEEP_LAB keeps $T (the server's directory, console and the
# daemon's log are in it); HILAB_SWITCH_BY_HAND adds the same switch done
# by hand (bench/switch_by_hand.sh) after the job, its times as comments.

. "$HILAB_SRCDIR/tests/lib/skip.sh"

# Checks root and the programs, brings the lab up (its env), makes the
# test's directory $T (/tmp/hilab-TAG.*) with a database, socket and
# inventory of its own, and arms the teardown.
server_test_init() {
	local tag=$1 c labenv

	shift
	[ "$(id -u)" = 0 ] || skip_missing_tap "needs root (qemu, ipmi_sim)"
	for c in ipmi_sim ipmitool qemu-system-x86_64 sqlite3 "$@"; do
		command -v "$c" >/dev/null ||
		    skip_missing_tap "$c not installed (scripts/install-deps.sh)"
	done
	labenv=$("$HILAB_SRCDIR/scripts/lab.sh" up) ||
	    { echo "Bail out! lab.sh up"; exit 1; }
	eval "$labenv"
	. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
	daemon_scratch "$tag"
	trap server_test_cleanup EXIT
}

# server_grub_init TAG [PROGRAM...]: server_test_init for a test on the
# grub stand-in, whose disk is built first (once, then cached); K is the
# lab's kernel cache, where the Debian kernels' images and modules are.
server_grub_init() {
	server_test_init "$1" qemu-img mmdebstrap sfdisk mkfs.ext4 "${@:2}"
	"$HILAB_SRCDIR/scripts/lab-server.sh" image ||
	    { echo "Bail out! lab-server.sh image"; exit 1; }
	K=${HILAB_KERNEL_CACHE:-/var/cache/hilab/kernels}
}

# The teardown: the daemon, the server (BMC and qemu), the test's
# directory; the test's exit status kept.
server_test_cleanup() {
	local rc=$?

	daemon_stop KILL
	server_down
	[ $rc = 0 ] || daemon_log_on_failure
	[ -n "${HILAB_KEEP_LAB:-}" ] || rm -rf "$T"
	[ -z "${SRC:-}" ] || git -C "$SRC" worktree prune 2>/dev/null
	exit $rc
}

# Brings the stand-in up, copies its machine file into $HILAB_MACHINES and
# waits until it answers ssh; prints how long that took as a TAP comment.
server_up() {
	local t0 out end

	t0=$(date +%s)
	SERVER_NAME=$1
	out=$(HILAB_SERVER_DIR=$T/servers "$HILAB_SRCDIR/scripts/lab-server.sh" \
	    up "$@") || { echo "Bail out! lab-server.sh up $*"; exit 1; }
	eval "$out"
	mkdir -p "$HILAB_MACHINES"
	cp "$SERVER_FILE" "$HILAB_MACHINES/"
	SERVER_ADDR=$3
	end=$(($(date +%s) + 300))
	while [ "$(date +%s)" -lt $end ]; do
		server_ssh true 2>/dev/null && break
		sleep 1
	done
	if ! server_ssh true 2>/dev/null; then
		tail -20 "$SERVER_DIR/console.log" | sed 's/^/# console: /'
		echo "Bail out! $1 does not answer ssh after 300 s"
		exit 1
	fi
	echo "# $1 ($2) powered on to ssh: $(($(date +%s) - t0)) s"
}

# Takes the stand-in down (BMC and qemu).
server_down() {
	[ -n "${SERVER_NAME:-}" ] || return 0
	HILAB_SERVER_DIR=$T/servers "$HILAB_SRCDIR/scripts/lab-server.sh" \
	    down "$SERVER_NAME"
}

# Runs a command on the stand-in over plain OpenSSH, its host key known
# (strict: the one lab-server.sh wrote).
server_ssh() {
	ssh -q -i "$HILAB_LAB_DIR/keys/lab_ed25519" \
	    -o UserKnownHostsFile="$SERVER_DIR/known_hosts" \
	    -o StrictHostKeyChecking=yes -o BatchMode=yes \
	    -o ConnectTimeout=3 "root@$SERVER_ADDR" "$@"
}

# server_job NAME ROUNDS KERNELS-YAML: writes $T/NAME.yaml, a short
# hackbench job on the stand-in with its kernels in alternating rounds,
# and prints its path.
server_job() {
	cat >"$T/$1.yaml" <<YAML
name: $1
machines: [$SERVER_NAME]
kernels:
$3
rounds: $2
order: alternate
benchmarks:
  - name: hackbench
    params: {groups: 1, loops: 20}
    iterations: 2
    warmups: 0
YAML
	echo "$T/$1.yaml"
}

# server_submit FILE: queues the job and sets JOB to its id; when it is
# refused, JOB is empty and hilab's message is printed as TAP comments.
server_submit() {
	: >"$T/submit.err"
	JOB=$(SUBMIT_ERR=$T/submit.err submit "$1")
	[ -n "$JOB" ] || sed 's/^/# submit: /' "$T/submit.err"
}

# server_wait TIMEOUT: waits for job $JOB (hilab wait); 1 when there is
# none (refused) or it failed.
server_wait() {
	[ -n "$JOB" ] || return 1
	"$hilab" wait --timeout "$1" "$JOB" >/dev/null
}

# fact JOB ROUND POSITION KEY: a fact a run of the job recorded.
run_fact() {
	sql "SELECT json_extract(facts, '\$.\"$4\"') FROM runs WHERE job = $1 AND round = $2 AND position = $3"
}

# two_kernel_checks JOB BASE_RELEASE PATCHED_RELEASE: what every job of
# base and patched in two alternating rounds must show.
two_kernel_checks() {
	local j=$1

	check "runs alternate: base patched | patched base" test "$(sql "SELECT group_concat(k.name, ' ') FROM (SELECT * FROM runs WHERE job = $j ORDER BY round, position) r JOIN kernels k ON k.id = r.kernel")" = "base patched patched base"
	check "every run done" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $j AND state = 'done'")" = 4
	check "2 samples per kernel and round" test "$(sql "SELECT group_concat(c, ',') FROM (SELECT COUNT(*) c FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $j AND s.metric = 'time' GROUP BY r.kernel, r.round)")" = "2,2,2,2"
	check "each kernel ran its own release" test "$(sql "SELECT group_concat(k.name || '=' || json_extract(r.facts, '\$.\"kernel.release\"'), ' ') FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $j AND r.round = 0 ORDER BY r.position")" = "base=$2 patched=$3"
	check "each run booted a hilab install (BOOT_IMAGE=<dir>/<id>/vmlinuz)" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $j AND json_extract(facts, '\$.\"kernel.cmdline\"') GLOB 'BOOT_IMAGE=*/hilab/[0-9a-f]*/vmlinuz *'")" = 4
	check "one install per kernel, the same in both rounds" test "$(sql "SELECT COUNT(DISTINCT substr(json_extract(facts, '\$.\"kernel.cmdline\"'), 1, instr(json_extract(facts, '\$.\"kernel.cmdline\"'), ' '))) FROM runs WHERE job = $j")" = 2
	check "a new boot for every run" test "$(sql "SELECT COUNT(DISTINCT json_extract(facts, '\$.boot_id')) FROM runs WHERE job = $j")" = 4
	check "the patched kernel has its cmdline word" test "$(sql "SELECT COUNT(*) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $j AND k.name = 'patched' AND json_extract(r.facts, '\$.\"kernel.cmdline\"') LIKE '% hilab_test=patched%'")" = 2
	"$hilab" compare --job "$j" >"$T/compare-$j.txt"
	check "compare has base and patched columns" grep -q "base.*patched" "$T/compare-$j.txt"
}

# server_series WORK: the lab's Linux tree (tests/kernels/lab_source.sh,
# kept in the lab cache) as SRC, its two-patch series in $T/good.mbox, and
# a worktree of the test's own there (WORK, HILAB_KERNEL_WORK): a config
# other than the kernel lab tests' would make theirs, or the next one's,
# build from nothing.  Built kernels are cached by content hash.  Needs
# git, gcc, make, flex, bison and bc (server_test_init's PROGRAMs).
server_series() {
	local lab=${HILAB_LAB_CACHE:-/var/cache/hilab/lab} rc=0

	mkdir -p "$lab"
	SRC=$(flock "$lab/.source.lock" \
	    "$HILAB_SRCDIR/tests/kernels/lab_source.sh") || rc=$?
	[ $rc = 0 ] || exit $rc
	export HILAB_KERNEL_WORK=$lab/$1
	"$HILAB_SRCDIR/tests/kernels/lab_series.sh" "$SRC" "$T"
}

# server_fragment NAME: writes the config fragment $T/NAME.config merged
# after scripts/lab-kernel.config for the stand-ins' built kernels and
# prints its path.  "slub": SLUB, not tinyconfig's SLOB, whose one lock
# livelocks a guest of 16 vCPUs under TCG as soon as hackbench allocates
# (an RCU stall in kfree_rcu_work spinning on it, sshd silent).  "disk":
# that, and a kernel that boots the grub stand-in's Debian 12 root,
# systemd and OpenSSH's sshd, from the virtio disk with no initrd and no
# modules (root=/dev/vda1 on the job's command line: without an initrd
# the kernel cannot find root=UUID=).
server_fragment() {
	cat >"$T/$1.config" <<'EOF'
CONFIG_SLUB=y
# CONFIG_SLOB is not set
EOF
	[ "$1" != disk ] || cat >>"$T/$1.config" <<'EOF'
CONFIG_BLOCK=y
CONFIG_BLK_DEV=y
CONFIG_VIRTIO_BLK=y
CONFIG_EXT4_FS=y
CONFIG_DEVTMPFS_MOUNT=y
# What systemd 252 wants of a kernel.
CONFIG_FHANDLE=y
CONFIG_INOTIFY_USER=y
CONFIG_AUTOFS_FS=y
CONFIG_TMPFS_POSIX_ACL=y
CONFIG_TMPFS_XATTR=y
CONFIG_POSIX_MQUEUE=y
CONFIG_SYSVIPC=y
CONFIG_NAMESPACES=y
CONFIG_UTS_NS=y
CONFIG_IPC_NS=y
CONFIG_PID_NS=y
CONFIG_NET_NS=y
CONFIG_IPV6=y
# systemd-networkd's LLDP client opens a packet socket; without one it
# fails the link ("Address family not supported by protocol").
CONFIG_PACKET=y
EOF
	echo "$T/$1.config"
}

# built_job NAME FRAGMENT KERNEL-KEYS: a job of base and patch 1 built from
# $SRC and $T/good.mbox on tinyconfig, the lab's fragment and FRAGMENT (a
# path, server_fragment's), with more keys of the kernel entry (YAML,
# indented four spaces); prints its path.
built_job() {
	server_job "$1" 2 "  - git: $SRC
    base: $(git -C "$SRC" rev-parse HEAD)
    series: $T/good.mbox
    config: tinyconfig
    fragments: [$HILAB_SRCDIR/scripts/lab-kernel.config, $2]
    variants: [[], [1]]
$3"
}

# built_kernel_checks JOB: base and patch 1 in two alternating rounds, each
# run on its own build (its build id in uname -v).
built_kernel_checks() {
	local c=$1

	check "built kernels alternate: base, patch 1 | patch 1, base" test "$(sql "SELECT group_concat(k.name, ',') FROM (SELECT * FROM runs WHERE job = $c ORDER BY round, position) r JOIN kernels k ON k.id = r.kernel")" = "base,patch 1,patch 1,base"
	check "each run booted its kernel's build id (uname -v)" test "$(sql "SELECT COUNT(*) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $c AND r.state = 'done' AND json_extract(r.facts, '\$.\"kernel.version\"') LIKE '#' || json_extract(k.spec, '\$.build_id') || ' %'")" = 4
	check "two distinct build ids" test "$(sql "SELECT COUNT(DISTINCT json_extract(k.spec, '\$.build_id')) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $c")" = 2
}

# Waits until the host runs its known-good kernel again, booted by the
# firmware or kexec'd from none of hilab's installs (the job's end); 0
# once it does, 1 after 300 s.
server_back_known_good() {
	local end=$(($(date +%s) + 300))

	while [ "$(date +%s)" -lt $end ]; do
		server_ssh "[ \"\$(uname -r)\" = $SERVER_KNOWN_GOOD ] && ! grep -q 'BOOT_IMAGE=[^ ]*/hilab/' /proc/cmdline" \
		    2>/dev/null && return 0
		sleep 1
	done
	return 1
}

# The switch times hilabd logged, as TAP comments.
server_times() {
	grep -E 'answers on ssh after|ssh went away after' "$HILABD_LOG" |
	    sed 's/^/# /'
}

# With HILAB_SWITCH_BY_HAND set, the same switch done by hand with plain
# OpenSSH commands (bench/switch_by_hand.sh METHOD ARGS...), its times as
# TAP comments: the figures to hold hilabd's against, from the same run.
server_by_hand() {
	[ -n "${HILAB_SWITCH_BY_HAND:-}" ] || return 0
	"$HILAB_SRCDIR/bench/switch_by_hand.sh" "$1" "$SERVER_ADDR" \
	    "$SERVER_DIR/known_hosts" "${@:2}" 2>&1 | sed 's/^/# by hand: /'
}
