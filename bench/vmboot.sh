#!/usr/bin/env bash
# A VM's boot to ready (bench/run's --vm part): through hilab, a job of
# one short run on the lab's 4-vCPU VM from submit to the run started
# (domain defined and started, kernel booted, ssh, the boot verified, the
# agent uploaded and answering); plain, the same domain XML (lab-vm xml)
# defined and started with virsh until OpenSSH runs `true` in it.  In
# turn, ROUNDS times each.  Then ROUNDS jobs whose benchmark panics the
# kernel: from the panic line on the console to the run failed.  Rows on
# stdout.  Root; brings the lab up.
#
#	bench/vmboot.sh ROUNDS BUILD_DIR
set -u
rounds=${1:?rounds}
export HILAB_BUILDDIR=${2:?build dir}
export HILAB_SRCDIR=${HILAB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$HILAB_SRCDIR/bench/lib.sh"
labenv=$("$HILAB_SRCDIR/scripts/lab.sh" up) || exit 1
eval "$labenv"
. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
daemon_scratch vmboot
cp "$HILAB_LAB_DIR/machines/vm4.yaml" "$HILAB_MACHINES/"
URI=qemu:///system PLAIN=hilab-bench-plain
cleanup() {
	daemon_stop KILL
	for d in hilab-vm4 "$PLAIN"; do
		virsh -q -c "$URI" destroy "$d" >/dev/null 2>&1
		virsh -q -c "$URI" undefine "$d" >/dev/null 2>&1
	done
	rm -rf "$T"
}
trap cleanup EXIT
ssh_args=(-q -o BatchMode=yes -o ConnectTimeout=2 -o "UserKnownHostsFile=$(sed -n 's/^ *known_hosts: //p' "$HILAB_MACHINES/vm4.yaml")"
    -i "$(sed -n 's/^ *identity: //p' "$HILAB_MACHINES/vm4.yaml")"
    -p "$(sed -n 's/^ *port: //p' "$HILAB_MACHINES/vm4.yaml")"
    "root@$(sed -n 's/^ *host: //p' "$HILAB_MACHINES/vm4.yaml")")
"$HILAB_BUILDDIR/tests/lab/lab-vm" xml vm4 |
    sed "s|<name>hilab-vm4</name>|<name>$PLAIN</name>|" >"$T/plain.xml" || exit 1
cat >"$T/job.yaml" <<YAML
name: vmboot
machines: [vm4]
kernels: [{name: base, image: $HILAB_LAB_KERNEL_BASE}]
benchmarks:
  - name: one
    command: [sh, -c, 'echo t=1']
    parser: keyvalue
    metrics: [{name: t, unit: s, direction: lower}]
    iterations: 1
    warmups: 0
YAML

# plain: define and start the domain, until ssh runs true; prints ms.
plain() {
	local t0 end

	t0=$(now_ms) end=$(($(date +%s) + 180))
	virsh -q -c "$URI" define "$T/plain.xml" >/dev/null &&
	    virsh -q -c "$URI" start "$PLAIN" >/dev/null || return 1
	until ssh "${ssh_args[@]}" true 2>/dev/null; do
		[ "$(date +%s)" -lt "$end" ] || return 1
		sleep 0.1
	done
	echo $(($(now_ms) - t0))
	virsh -q -c "$URI" destroy "$PLAIN" >/dev/null
	virsh -q -c "$URI" undefine "$PLAIN" >/dev/null
}
# hilab: the job; prints submit to its run started, in ms.
hilab() {
	local t0 id

	t0=$(now_ms)
	id=$(submit "$T/job.yaml")
	"$hilab" wait --timeout 300 "$id" >/dev/null || return 1
	sql "SELECT started_at - $t0 FROM runs WHERE job = $id"
	# the VM goes once the job is done with
	for _ in $(seq 1 100); do
		virsh -q -c "$URI" domstate hilab-vm4 >/dev/null 2>&1 || return 0
		sleep 0.1
	done
}

cat >"$T/panic.yaml" <<YAML
name: panic
machines: [vm4]
kernels: [{name: base, image: $HILAB_LAB_KERNEL_BASE}]
benchmarks:
  - name: crash
    command: [sh, -c, 'sleep 0.5; echo c > /proc/sysrq-trigger']
    parser: keyvalue
    metrics: [{name: t, unit: s, direction: lower}]
    iterations: 1
    warmups: 0
YAML
# panicked: the job whose benchmark crashes the kernel (sysrq c); prints
# the ms from the panic line on the console to the run failed.  The line's
# time: the console file's last write less the kernel's printk time from
# the line to the last one.
panicked() {
	local id console

	id=$(submit "$T/panic.yaml")
	"$hilab" wait --timeout 300 "$id" >/dev/null # the run fails
	[ "$(sql "SELECT COUNT(*) FROM runs WHERE job = $id AND error LIKE '%panicked during the run%'")" = 1 ] ||
	    { echo "vmboot: the panic job $id: $(sql "SELECT error FROM runs WHERE job = $id")" >&2; return 1; }
	console=$(ls -t "$HILAB_LAB_DIR"/console/vm4-*.log | head -n 1)
	awk -v end="$(sql "SELECT finished_at FROM runs WHERE job = $id")" \
	    -v mtime="$(stat -c %.3Y "$console")" '
	/^\[ *[0-9.]+\]/ {
		t = substr($0, 2, index($0, "]") - 2) + 0
		if (panic == "" && /Kernel panic - not syncing/)
			panic = t
		last = t
	}
	END {
		if (panic == "")
			exit 1
		printf "%d\n", end - (mtime - (last - panic)) * 1000
	}' "$console"
}

daemon_start || exit 1
for r in $(seq "$rounds"); do
	echo "vmboot: round $r of $rounds" >&2
	hilab >>"$T/hilab.ms" || { echo "vmboot: job failed: $(tail -3 "$HILABD_LOG")" >&2; exit 1; }
	plain >>"$T/plain.ms" || { echo "vmboot: plain boot did not answer ssh" >&2; exit 1; }
done
for r in $(seq "$rounds"); do
	echo "vmboot: panic $r of $rounds" >&2
	panicked >>"$T/panic.ms" || exit 1
done
h=$(median <"$T/hilab.ms") p=$(median <"$T/plain.ms")
row "a 4-vCPU VM (TCG) to ready, median of $rounds: through hilab (submit to the run started: define, boot, ssh, verify, agent) against plain virsh define + start to OpenSSH running true (ms; goal: plain + 1000)" \
    "$h" "$p" "$(ratio "$h" "$p")" "<= $((p + 1000)) ms" "$(le "$h" $((p + 1000)))"
h=$(median <"$T/panic.ms")
row "a kernel panic during a run on that VM (sysrq c), median of $rounds: the panic line on its console to the run failed (ms)" \
    "$h" "-" "-" "<= 1000" "$(le "$h" 1000)"
