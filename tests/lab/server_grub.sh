#!/usr/bin/env bash
# A bare-metal stand-in that switches kernels with grub, through hilabd: a
# qemu VM hilab reaches as kind ssh, powered through a BMC (ipmi_sim),
# booted by SeaBIOS from a disk holding a real Debian 12 root whose grub
# default is its own kernel (the newer lab kernel's release).  Two kernels
# in alternating rounds: the older lab kernel with its modules (sent, with
# an initrd made on the host by mkinitramfs) and the newer one (the host's
# own modules and initrd kept), each a grub entry of its own picked with
# grub-reboot for one boot, verified by BOOT_IMAGE=, measured; the default
# entry never changed and the host back on it after the job.  Then two
# kernels hilabd builds from a real Linux 6.1 tree and the lab's two-patch
# series (base and patch 1, no modules, no initrd: root=/dev/vda1) on
# grub entries of their own, alternating, each verified by its build id.
set -u
. "$HILAB_SRCDIR/tests/lib/server.sh"
server_grub_init srvg ssh git gcc make flex bison bc
# The disk config keeps a worktree of its own.
server_series work-disk

echo "1..22"
server_up grub-sa grub 127.0.0.42 1 2 1 1536
[ "$SERVER_KNOWN_GOOD" = "$HILAB_LAB_RELEASE_PATCHED" ] ||
    echo "# the disk's kernel $SERVER_KNOWN_GOOD is not the lab's newer one"
default=$(server_ssh 'grep ^GRUB_DEFAULT= /etc/default/grub; md5sum </boot/vmlinuz-*')

b=$HILAB_LAB_RELEASE_BASE
p=$HILAB_LAB_RELEASE_PATCHED
server_job grub-two 2 "  - {name: base, image: $K/$b/boot/vmlinuz-$b, modules: $K/$b}
  - {name: patched, image: $K/$p/boot/vmlinuz-$p, modules: $K/$p, cmdline: hilab_test=patched}" >/dev/null
daemon_start
t0=$(date +%s)
server_submit "$T/grub-two.yaml"
a=${JOB:-0}
server_wait 1500
check "two kernels x two rounds done" test $? = 0
echo "# job $a took $(($(date +%s) - t0)) s"
two_kernel_checks "$a" "$b" "$p"
check "after the job: back on the known-good kernel" server_back_known_good
ib=$(server_ssh "grep -l '^$b\$' /boot/hilab/*/release" | cut -d/ -f4)
check "base's modules were sent, with their stamp" test "$(server_ssh cat /lib/modules/$b/.hilab)" = "$ib"
check "base's initrd was made on the host (not the host's own)" \
    server_ssh "test -s /boot/hilab/$ib/initrd.img && ! cmp -s /boot/hilab/$ib/initrd.img /boot/initrd.img-$p"
check "the host's own modules of $p were kept" server_ssh "test ! -e /lib/modules/$p/.hilab"
check "one grub entry per install, with its id" \
    test "$(server_ssh "grep -c -- '--id hilab-[0-9a-f]\{16\} ' /boot/grub/hilab.cfg")" = 2
check "the default entry did not change" \
    test "$(server_ssh 'grep ^GRUB_DEFAULT= /etc/default/grub; md5sum </boot/vmlinuz-*')" = "$default"
check "no one-shot entry left" test "$(server_ssh grub-editenv list)" = "next_entry="

# Kernels built from git + a series, booted from the disk without an initrd.
built_job grub-built "$(server_fragment disk)" "    cmdline: root=/dev/vda1" >/dev/null
t0=$(date +%s)
server_submit "$T/grub-built.yaml"
c=${JOB:-0}
server_wait 2400
check "built kernels base and patch 1 x two rounds done" test $? = 0
echo "# job $c (builds included) took $(($(date +%s) - t0)) s"
built_kernel_checks "$c"
check "after the built kernels: back on the known-good kernel" server_back_known_good
server_times
daemon_stop TERM
server_by_hand grub "hilab-$ib"
exit $((failed > 0))
