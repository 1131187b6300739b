#!/usr/bin/env bash
# A bare-metal stand-in that switches kernels with kexec, through hilabd:
# a qemu VM of 2 sockets x 4 cores x 2 threads that hilab reaches as kind
# ssh, powered through a BMC (ipmi_sim), console in a console server's
# log, booting the lab's host image with its sshd started without the SFTP
# subsystem (as dropbear on boards).  Two kernels (the lab's Debian cloud
# kernels) in alternating rounds: each installed over the exec channel,
# kexec'd, verified, measured; the host back on its known-good kernel
# after the job.  Then two kernels hilabd builds from a real Linux 6.1 tree
# and the lab's two-patch series (base and patch 1, booted with the host
# image), alternating, each verified by its build id in uname -v.
set -u
. "$HILAB_SRCDIR/tests/lib/server.sh"
server_test_init srvk ssh sftp git gcc make flex bison bc
# A worktree of its own: the lab's config with SLUB (server_fragment).
server_series work-server

echo "1..20"
SERVER_CMDLINE=hilab.nosftp server_up epyc-sa kexec 127.0.0.41 2 4 2 2048
check "the stand-in's sshd has no SFTP subsystem" \
    test "$(echo quit | sftp -q -b - -i "$HILAB_LAB_DIR/keys/lab_ed25519" -o UserKnownHostsFile="$SERVER_DIR/known_hosts" -o StrictHostKeyChecking=yes "root@$SERVER_ADDR" >/dev/null 2>&1; echo $?)" != 0

server_job kexec-two 2 "  - {name: base, image: $HILAB_LAB_KERNEL_BASE, initrd: $HILAB_LAB_INITRD}
  - {name: patched, image: $HILAB_LAB_KERNEL_PATCHED, initrd: $HILAB_LAB_INITRD, cmdline: hilab_test=patched}" >/dev/null
daemon_start
t0=$(date +%s)
server_submit "$T/kexec-two.yaml"
a=${JOB:-0}
server_wait 900
check "two kernels x two rounds done" test $? = 0
echo "# job $a took $(($(date +%s) - t0)) s"
two_kernel_checks "$a" "$HILAB_LAB_RELEASE_BASE" "$HILAB_LAB_RELEASE_PATCHED"
check "facts: 16 CPUs, 2 sockets, 4 cores each, 2 threads, 2 NUMA nodes" \
    test "$(run_fact "$a" 0 0 cpu.online)/$(run_fact "$a" 0 0 topo.sockets)/$(run_fact "$a" 0 0 topo.cores_per_socket)/$(run_fact "$a" 0 0 topo.threads_per_core)/$(run_fact "$a" 0 0 numa.nodes)" = 16/2/4/2/2
check "the agent went up over the exec channel" grep -q 'epyc-sa: agent ready (x86_64, uploaded)' "$HILABD_LOG"
check "after the job: back on the known-good kernel" server_back_known_good
check "one console file per switch, each with its kernel's boot" \
    test "$(grep -l 'Linux version' "$SERVER_DIR"/consoles/*.log 2>/dev/null | wc -l)" -ge 5
check "the console of a patched boot shows its release" \
    grep -q "Linux version $HILAB_LAB_RELEASE_PATCHED" "$SERVER_DIR"/consoles/*.log

# Kernels built from git + a series, alternating, verified by build id.
built_job kexec-built "$(server_fragment slub)" "    initrd: $HILAB_LAB_INITRD" >/dev/null
t0=$(date +%s)
server_submit "$T/kexec-built.yaml"
c=${JOB:-0}
server_wait 1500
check "built kernels base and patch 1 x two rounds done" test $? = 0
echo "# job $c (builds included) took $(($(date +%s) - t0)) s"
built_kernel_checks "$c"
server_times
daemon_stop TERM
server_by_hand kexec "$HILAB_LAB_KERNEL_BASE" "$HILAB_LAB_INITRD"
exit $((failed > 0))
