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
. "$HILAB_SRCDIR/bench/vmlib.sh"
PLAIN=hilab-bench-plain
export VM_DOMAINS=$PLAIN
vm_lab vmboot
ssh_args=(-q -o BatchMode=yes -o ConnectTimeout=2
    -o "UserKnownHostsFile=$(vm_ssh known_hosts)" -i "$(vm_ssh identity)"
    -p "$(vm_ssh port)" "root@$(vm_ssh host)")
"$HILAB_BUILDDIR/tests/lab/lab-vm" xml vm4 |
    sed "s|<name>hilab-vm4</name>|<name>$PLAIN</name>|" >"$T/plain.xml" || exit 1
vm_job vmboot 'echo t=1' >"$T/job.yaml"

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
	vm_done "$id" || return 1
	sql "SELECT started_at - $t0 FROM runs WHERE job = $id"
}

vm_job crash 'sleep 0.5; echo c > /proc/sysrq-trigger' >"$T/panic.yaml"

for r in $(seq "$rounds"); do
	echo "vmboot: round $r of $rounds" >&2
	hilab >>"$T/hilab.ms" || { echo "vmboot: job failed: $(tail -3 "$HILABD_LOG")" >&2; exit 1; }
	plain >>"$T/plain.ms" || { echo "vmboot: plain boot did not answer ssh" >&2; exit 1; }
	echo "vmboot: round $r: hilab $(tail -1 "$T/hilab.ms") ms, plain $(tail -1 "$T/plain.ms") ms" >&2
done
for r in $(seq "$rounds"); do
	echo "vmboot: panic $r of $rounds" >&2
	vm_panicked "$T/panic.yaml" >>"$T/panic.ms" || exit 1
done
h=$(median <"$T/hilab.ms") p=$(median <"$T/plain.ms")
row "a 4-vCPU VM (TCG) to ready, median of $rounds: through hilab (submit to the run started: define, boot, ssh, verify, agent) against plain virsh define + start to OpenSSH running true (ms; goal: plain + 1000)" \
    "$h" "$p" "$(ratio "$h" "$p")" "<= $((p + 1000)) ms" "$(le "$h" $((p + 1000)))"
h=$(cut -d' ' -f1 "$T/panic.ms" | median)
row "a kernel panic during a run on that VM (sysrq c), median of $rounds: the panic line on its console to the run failed (ms)" \
    "$h" "-" "-" "<= 1000" "$(le "$h" 1000)"
