#!/usr/bin/env bash
# The kernel switches hilabd makes on a bare-metal stand-in, done by hand
# with plain OpenSSH commands and ipmitool, as the figures to hold hilabd's
# logged times against: copying a kernel and its initrd, a kexec until ssh
# answers on the new boot, a grub one-shot reboot until it does, a power
# cycle through the BMC until it does.
#
#	bench/switch_by_hand.sh kexec ADDR KNOWN_HOSTS IMAGE INITRD
#	bench/switch_by_hand.sh grub-put ADDR KNOWN_HOSTS IMAGE MODULES
#	bench/switch_by_hand.sh grub ADDR KNOWN_HOSTS ENTRY_ID
#	bench/switch_by_hand.sh cycle ADDR KNOWN_HOSTS SERVER_DIR
#
# ADDR is a server of scripts/lab-server.sh (up), KNOWN_HOSTS its
# known_hosts file (checked strictly).  grub-put installs IMAGE on a grub
# server by hand, as hilab does: the modules of its release from MODULES
# (a directory holding lib/modules/<release> and boot/config-<release>,
# as the lab's kernel cache has them), an initrd made on the server (mkinitramfs) and a menu entry
# of id "byhand" in /boot/grub/custom.cfg, beside the default one.  grub
# boots ENTRY_ID (byhand, or hilab-<id> after a hilab job) once, then
# prints the new boot's command line.  cycle power-cycles the server
# through its BMC (SERVER_DIR/bmc).  Each step prints its seconds.
set -eu
KEY=${HILAB_LAB_DIR:-/var/lib/hilab/lab}/keys/lab_ed25519

# Runs a command on the server.
on() {
	ssh -q -i "$KEY" -o UserKnownHostsFile="$KH" \
	    -o StrictHostKeyChecking=yes -o BatchMode=yes \
	    -o ConnectTimeout=3 "root@$ADDR" "$@"
}

# Seconds since $1 (date +%s.%N), to a tenth.
since() {
	echo "$(date +%s.%N) $1" | awk '{ printf "%.1f\n", $1 - $2 }'
}

# Waits (up to 10 min) until the server answers with a boot id other
# than $1.
wait_new_boot() {
	local id

	for _ in $(seq 1 1200); do
		id=$(on cat /proc/sys/kernel/random/boot_id 2>/dev/null) || id=
		[ -n "$id" ] && [ "$id" != "$1" ] && return 0
		sleep 0.5
	done
	echo "no new boot" >&2
	return 1
}

# kexec: copy, load, kexec -e detached, wait.
by_hand_kexec() {
	local img=$1 initrd=$2 t0 boot

	boot=$(on cat /proc/sys/kernel/random/boot_id)
	t0=$(date +%s.%N)
	on mkdir -p /boot/byhand
	on 'cat >/boot/byhand/vmlinuz' <"$img"
	on 'cat >/boot/byhand/initrd.img' <"$initrd"
	echo "copy image and initrd: $(since "$t0") s"
	t0=$(date +%s.%N)
	on "kexec -l /boot/byhand/vmlinuz --initrd=/boot/byhand/initrd.img --command-line=\"\$(cat /proc/cmdline)\""
	echo "kexec -l: $(since "$t0") s"
	t0=$(date +%s.%N)
	on 'setsid sh -c "sleep 1; kexec -e" </dev/null >/dev/null 2>&1 &'
	wait_new_boot "$boot"
	echo "kexec -e to ssh on the new boot: $(since "$t0") s (1 s of it the detach's sleep)"
	echo "now: $(on uname -r)"
}

# grub-put: the kernel, its modules, an initrd made there, an entry.
by_hand_grub_put() {
	local img=$1 mods=$2 rel t0 uuid

	rel=$(basename "$(ls -d "$mods"/lib/modules/* | head -n 1)")
	t0=$(date +%s.%N)
	on mkdir -p /boot/byhand
	on 'cat >/boot/byhand/vmlinuz' <"$img"
	# mkinitramfs reads the kernel's config for its compressors.
	on "cat >/boot/byhand/config-$rel" <"$mods/boot/config-$rel"
	on "[ -e /boot/config-$rel ] || ln -s byhand/config-$rel /boot/config-$rel"
	on "[ -d /lib/modules/$rel ]" ||
	    tar -C "$mods" -cf - "lib/modules/$rel" | on 'tar -C / -xf -'
	echo "copy image, config and modules of $rel: $(since "$t0") s"
	t0=$(date +%s.%N)
	on "depmod $rel && mkinitramfs -o /boot/byhand/initrd.img $rel"
	echo "mkinitramfs on the server: $(since "$t0") s"
	uuid=$(on findmnt -no UUID /)
	on 'cat >/boot/grub/custom.cfg' <<EOF
menuentry 'byhand $rel' --id byhand {
	search --no-floppy --fs-uuid --set=root $uuid
	linux /boot/byhand/vmlinuz root=UUID=$uuid ro console=ttyS0,115200 panic=1 net.ifnames=0
	initrd /boot/byhand/initrd.img
}
EOF
	echo "entry byhand: $rel"
}

# grub: one-shot entry, reboot detached, wait.
by_hand_grub() {
	local entry=$1 t0 boot

	boot=$(on cat /proc/sys/kernel/random/boot_id)
	on grub-reboot "$entry"
	t0=$(date +%s.%N)
	on 'setsid sh -c "sleep 1; systemctl reboot" </dev/null >/dev/null 2>&1 &'
	wait_new_boot "$boot"
	echo "grub-reboot + reboot to ssh on the new boot: $(since "$t0") s (1 s of it the detach's sleep)"
	echo "now: $(on uname -r): $(on cat /proc/cmdline)"
}

# cycle: chassis power cycle through the BMC, wait.
by_hand_cycle() {
	local d=$1 t0 boot

	boot=$(on cat /proc/sys/kernel/random/boot_id)
	t0=$(date +%s.%N)
	ipmitool -I lanplus -C 3 -H 127.0.0.1 -p "$(cat "$d/bmc/port")" \
	    -U lab -f "$d/bmc/password" chassis power cycle >/dev/null
	wait_new_boot "$boot"
	echo "ipmitool chassis power cycle to ssh on the new boot: $(since "$t0") s"
	echo "now: $(on uname -r)"
}

mode=${1:?usage: $0 kexec|grub-put|grub|cycle ADDR KNOWN_HOSTS ...}
ADDR=${2:?address}
KH=${3:?known_hosts}
shift 3
case $mode in
kexec) by_hand_kexec "$@" ;;
grub-put) by_hand_grub_put "$@" ;;
grub) by_hand_grub "$@" ;;
cycle) by_hand_cycle "$@" ;;
*)
	echo "usage: $0 kexec|grub-put|grub|cycle ADDR KNOWN_HOSTS ..." >&2
	exit 2
	;;
esac
