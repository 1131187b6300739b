#!/usr/bin/env bash
# Bare-metal stand-ins: qemu VMs that hilab reaches as kind ssh machines
# and powers through a BMC (openipmi's ipmi_sim, whose power-on command
# execs qemu), so nothing tells hilab that they are VMs.  The serial port
# goes to a log file that grows across boots, as a console server's does.
#
#	scripts/lab-server.sh image	# build the grub server's disk (once)
#	scripts/lab-server.sh up NAME KIND ADDR [SOCKETS CORES THREADS [MEM]]
#	scripts/lab-server.sh down NAME
#	scripts/lab-server.sh dtb NAME GROUPS OUT	# a uboot board's .dtb
#
# KIND "kexec": the lab's host image (an initramfs) booted with the lab's
# first kernel, its known-good kernel; it switches kernels with kexec.
# KIND "grub": a disk holding a real Debian 12 root (mmdebstrap) with
# grub-pc, booted by SeaBIOS: grub's default entry is its known-good
# kernel, grub-reboot picks another for one boot.  The disk is built into
# $HILAB_SERVER_CACHE (default /var/cache/hilab/servers) and rebuilt only
# when this script's image steps change; each up boots a fresh overlay.
# KIND "uboot": an arm64 board (scripts/lab.sh arm64 first): U-Boot (Debian's
# qemu_arm64 build) whose distro boot reads extlinux/extlinux.conf from a
# virtio disk: its DEFAULT entry is the known-good arm64 kernel with the
# lab's arm64 host image, which mounts that disk at /boot.  Its console is
# a socket (a log file beside it) that the machine file reads with socat,
# so U-Boot's prompt can be answered.  SERVER_LLC_GROUPS ("0-3;4-7;8-9")
# gives the board L2 caches shared by those groups of CPUs: a board .dtb
# (srv_uboot_dtb) that DEFAULT boots with (FDT /board.dtb), as a board's
# vendor tree, and the machine file declares them as llc_groups.
# SOCKETS x CORES x THREADS (default 1 x 2 x 1) is the server's CPU
# topology, one NUMA node per socket; MEM its MiB (default 1024).
# ADDR is a loopback address: qemu forwards its port 22 to the server's
# sshd.  up writes the machine file DIR/NAME/NAME.yaml (DIR:
# $HILAB_SERVER_DIR, default /var/lib/hilab/servers), starts the BMC,
# powers the server on and prints its variables (SERVER_DIR, SERVER_FILE,
# SERVER_BMC_PORT, SERVER_CONSOLE, SERVER_KNOWN_GOOD); it does not wait
# for ssh.  SERVER_CMDLINE adds words to a kexec or uboot server's command
# line (hilab.nosftp: its sshd without the SFTP subsystem), SERVER_BOOT_TIMEOUT
# sets how long a switch may take (boot.timeout, default 300s).  down
# stops the server's qemu and its BMC.  Run as root, after scripts/lab.sh
# up (keys, kernels, host image).
set -eEu

LAB_DIR=${HILAB_LAB_DIR:-/var/lib/hilab/lab}
CACHE=${HILAB_SERVER_CACHE:-/var/cache/hilab/servers}
DIR=${HILAB_SERVER_DIR:-/var/lib/hilab/servers}
DISK=$CACHE/grub-debian12.img
UBOOT=/usr/lib/u-boot/qemu_arm64/u-boot.bin
SELF=$(readlink -f "$0")
. "$(dirname "$SELF")/bmc.sh"
# qemu's EPYC model shows no SMT under TCG (no topoext): Nehalem does, named
# as the stand-in it is.
SRV_CPU="Nehalem,model-id=EPYC stand-in (qemu Nehalem)"
PACKAGES=linux-image-cloud-amd64,openssh-server,openssh-sftp-server,grub-pc,kexec-tools,initramfs-tools,zstd,e2fsprogs,systemd-sysv,rt-tests,iproute2,kmod,procps

# Prints a message to stderr.
srv_say()
{
	echo "lab-server: $*" >&2
}

# Stops with a message.
srv_die()
{
	echo "lab-server: error: $*" >&2
	exit 1
}

# The disk's stamp: this script's image steps and the package list.
srv_stamp()
{
	{
		sed -n '/^# image-steps-begin/,/^# image-steps-end/p' "$SELF"
		echo "$PACKAGES"
	} | sha256sum | cut -c1-16
}

# image-steps-begin
# Writes the configuration of the Debian root in $1: network, sshd with
# the lab's host key and client key, a serial console, grub's defaults.
srv_root_etc()
{
	local root=$1

	echo hilab-server >"$root/etc/hostname"
	cat >"$root/etc/systemd/network/10-lab.network" <<'EOF'
[Match]
Name=en* eth*

[Network]
Address=10.0.2.15/24
Gateway=10.0.2.2
EOF
	mkdir -p "$root/etc/systemd/system/multi-user.target.wants"
	ln -sf /lib/systemd/system/systemd-networkd.service \
	    "$root/etc/systemd/system/multi-user.target.wants/systemd-networkd.service"
	rm -f "$root"/etc/ssh/ssh_host_*
	install -m 600 "$LAB_DIR/keys/host_ed25519" \
	    "$root/etc/ssh/ssh_host_ed25519_key"
	install -m 644 "$LAB_DIR/keys/host_ed25519.pub" \
	    "$root/etc/ssh/ssh_host_ed25519_key.pub"
	mkdir -p "$root/root/.ssh"
	chmod 700 "$root/root/.ssh"
	install -m 600 "$LAB_DIR/keys/lab_ed25519.pub" \
	    "$root/root/.ssh/authorized_keys"
	cat >"$root/etc/ssh/sshd_config.d/lab.conf" <<'EOF'
HostKey /etc/ssh/ssh_host_ed25519_key
PermitRootLogin prohibit-password
PasswordAuthentication no
UseDNS no
EOF
	cat >"$root/etc/default/grub" <<'EOF'
GRUB_DEFAULT=0
GRUB_TIMEOUT=1
GRUB_DISTRIBUTOR=Debian
GRUB_CMDLINE_LINUX_DEFAULT=""
GRUB_CMDLINE_LINUX="console=ttyS0,115200 panic=1 net.ifnames=0"
GRUB_TERMINAL="serial console"
GRUB_SERIAL_COMMAND="serial --unit=0 --speed=115200"
GRUB_DISABLE_OS_PROBER=true
EOF
	if [ -f "$root/etc/default/kexec" ]; then
		sed -i 's/^LOAD_KEXEC=.*/LOAD_KEXEC=false/' \
		    "$root/etc/default/kexec"
	fi
	sed -i 's/^root:[^:]*:/root:*:/' "$root/etc/shadow"
}

# Gives the root a /dev of its own at $1 (no udev): the usual nodes, the
# loop device and its partition, and /dev/disk/by-uuid/$2 for it, which
# grub-mkconfig needs to put root=UUID= on the kernels' command lines.
srv_dev()
{
	local dev=$1 uuid=$2 n

	mount -t tmpfs -o mode=755 dev "$dev"
	mknod -m 666 "$dev/null" c 1 3
	mknod -m 666 "$dev/zero" c 1 5
	mknod -m 666 "$dev/random" c 1 8
	mknod -m 666 "$dev/urandom" c 1 9
	for n in "$SRV_LOOP" "${SRV_LOOP}p1"; do
		mknod -m 660 "$dev/${n#/dev/}" b \
		    $((0x$(stat -c %t "$n"))) $((0x$(stat -c %T "$n")))
	done
	mkdir -p "$dev/disk/by-uuid"
	ln -s "../../${SRV_LOOP#/dev/}p1" "$dev/disk/by-uuid/$uuid"
}

# Partitions, formats and fills disk image $1 from root tarball $2, then
# installs grub on it (inside the root: its own grub-pc).  Runs in a mount
# namespace of its own (srv_image), so its mounts end with it, and lets
# its loop device go however it ends.
srv_disk()
{
	local img=$1 tar=$2 mnt uuid

	rm -f "$img"
	truncate -s 4G "$img"
	echo 'start=2048, type=83, bootable' | sfdisk -q -X dos "$img"
	mnt=$(dirname "$img")/mnt
	SRV_MNT=$mnt
	SRV_LOOP=$(losetup -f --show -P "$img")
	# Unmounted and detached however this ends (the mount namespace's end
	# would unmount, but a loop device outlives it).
	trap 'umount -R "$SRV_MNT" 2>/dev/null || true; losetup -d "$SRV_LOOP" || true' EXIT
	# Without udev the partition may need a nudge to show up.
	[ -b "${SRV_LOOP}p1" ] || partx -a "$SRV_LOOP"
	[ -b "${SRV_LOOP}p1" ] || srv_die "no partition device ${SRV_LOOP}p1"
	mkdir -p "$mnt"
	mkfs.ext4 -q -L hilab-root "${SRV_LOOP}p1"
	uuid=$(blkid -s UUID -o value "${SRV_LOOP}p1")
	mount "${SRV_LOOP}p1" "$mnt"
	tar -C "$mnt" -xf "$tar"
	echo "UUID=$uuid / ext4 errors=remount-ro 0 1" >"$mnt/etc/fstab"
	srv_root_etc "$mnt"
	mount -t proc proc "$mnt/proc"
	mount -t sysfs sysfs "$mnt/sys"
	srv_dev "$mnt/dev" "$uuid"
	chroot "$mnt" grub-install --target=i386-pc "$SRV_LOOP" >&2
	chroot "$mnt" update-initramfs -u -k all >&2
	chroot "$mnt" update-grub >&2
	# Initrds made later on the server itself hold only what it needs.
	sed -i 's/^MODULES=.*/MODULES=dep/' \
	    "$mnt/etc/initramfs-tools/initramfs.conf"
	grep -q "root=UUID=$uuid" "$mnt/boot/grub/grub.cfg"
	basename "$(ls "$mnt"/boot/vmlinuz-* | sort -V | tail -n 1)" |
	    sed 's/^vmlinuz-//' >"$img.release"
	umount -R "$mnt"
}
# image-steps-end

# Makes the Debian 12 root tarball unless the cached one has $PACKAGES.
srv_root()
{
	local tar=$CACHE/debian12-root.tar

	if [ -f "$tar" ] && [ "$(cat "$tar.stamp" 2>/dev/null)" = "$PACKAGES" ]
	then
		return 0
	fi
	srv_say "making a Debian 12 root with mmdebstrap (a few minutes)"
	mmdebstrap --quiet --variant=apt --include="$PACKAGES" bookworm \
	    "$CACHE/.root-tmp.tar" </etc/apt/sources.list.d/debian.sources >&2 ||
	    { rm -f "$CACHE/.root-tmp.tar"; srv_die "mmdebstrap failed"; }
	mv "$CACHE/.root-tmp.tar" "$tar"
	echo "$PACKAGES" >"$tar.stamp"
}

# Makes the board's boot disk $1 (a file, no loop device): one bootable
# ext4 partition holding extlinux/extlinux.conf, the known-good kernel and
# the lab's arm64 host image as its initrd, with room for hilab's kernels.
srv_uboot_disk()
{
	local img=$1 tmp fdt=""

	tmp=$(mktemp -d "$(dirname "$img")/.boot.XXXXXX")
	mkdir -p "$tmp/root/extlinux"
	install -m 644 "$LAB_DIR/kernels-arm64/vmlinuz-$KNOWN_GOOD" \
	    "$tmp/root/vmlinuz-$KNOWN_GOOD"
	install -m 644 "$LAB_DIR/image-arm64.cpio.gz" "$tmp/root/initrd.img"
	if [ -n "${SERVER_LLC_GROUPS:-}" ]; then
		srv_uboot_dtb "$(dirname "$img")" "$SERVER_LLC_GROUPS" \
		    "$tmp/root/board.dtb"
		fdt="  FDT /board.dtb"
	fi
	cat >"$tmp/root/extlinux/extlinux.conf" <<EOF
# The board's known-good kernel (scripts/lab-server.sh); hilab adds its
# own entries below and never changes DEFAULT.
DEFAULT known-good
LABEL known-good
  KERNEL /vmlinuz-$KNOWN_GOOD
  INITRD /initrd.img
  APPEND console=ttyAMA0 panic=1 hilab.bootfs=/dev/vda1${SERVER_CMDLINE:+ $SERVER_CMDLINE}
$fdt
EOF
	truncate -s 255M "$tmp/part.img"
	mkfs.ext4 -q -L hilab-boot -d "$tmp/root" "$tmp/part.img"
	truncate -s 256M "$img"
	echo 'start=2048, type=83, bootable' | sfdisk -q -X dos "$img"
	dd if="$tmp/part.img" of="$img" bs=1M seek=1 conv=notrunc,sparse \
	    status=none
	rm -rf "$tmp"
}

# Builds the grub server's disk unless the cached one is up to date; one
# build at a time (a lock in the cache), the others wait for it.
srv_image()
{
	mkdir -p "$CACHE"
	exec 8>"$CACHE/.lock"
	flock 8
	srv_image_locked
	exec 8>&-
}

srv_image_locked()
{
	local stamp tmp t0

	stamp=$(srv_stamp)
	if [ -f "$DISK" ] && [ "$(cat "$DISK.stamp" 2>/dev/null)" = "$stamp" ]
	then
		return 0
	fi
	[ -f "$LAB_DIR/keys/host_ed25519" ] ||
	    srv_die "run scripts/lab.sh up first (the lab's keys)"
	t0=$(date +%s)
	srv_root
	srv_say "building the grub server's disk"
	rm -rf "$CACHE"/.build.*	# left by a build that was killed
	tmp=$(mktemp -d "$CACHE/.build.XXXXXX")
	unshare -m --propagation private "$SELF" disk "$tmp/disk.img" \
	    "$CACHE/debian12-root.tar" ||
	    { rm -rf "$tmp"; srv_die "the disk image could not be made"; }
	mv "$tmp/disk.img.release" "$DISK.release"
	mv "$tmp/disk.img" "$DISK"
	rm -rf "$tmp"
	echo "$stamp" >"$DISK.stamp"
	srv_say "grub disk $DISK ($(cat "$DISK.release")) made in" \
	    "$(($(date +%s) - t0)) s"
}

# qemu's -smp and -numa arguments for sockets $1, cores $2, threads $3 and
# $4 MiB: one NUMA node per socket.
srv_topology()
{
	local s=$1 c=$2 t=$3 mem=$4 i per

	per=$((c * t))
	echo "-smp $((s * c * t)),sockets=$s,cores=$c,threads=$t"
	[ "$s" -gt 1 ] || return 0
	for i in $(seq 0 $((s - 1))); do
		echo "-object memory-backend-ram,id=m$i,size=$((mem / s))M"
		echo "-numa node,nodeid=$i,cpus=$((i * per))-$((i * per + per - 1)),memdev=m$i"
	done
}

# Writes the power-on script ipmi_sim runs for server dir $1 (kind $2,
# address $3, topology arguments $4, $5 MiB): it execs qemu.
srv_power_script()
{
	local d=$1 kind=$2 addr=$3 topo=$4 mem=$5 port boot

	port=$(cat "$d/bmc/port")
	if [ "$kind" = uboot ]; then
		srv_uboot_power_script "$d" "$addr" "$topo" "$mem"
		return
	fi
	if [ "$kind" = kexec ]; then
		boot="-kernel $LAB_DIR/kernels/vmlinuz-$KNOWN_GOOD"
		boot="$boot -initrd $LAB_DIR/image.cpio.gz"
		boot="$boot -append 'console=ttyS0 panic=1${SERVER_CMDLINE:+ $SERVER_CMDLINE}'"
	else
		boot="-drive file=$d/disk.qcow2,if=virtio,format=qcow2"
	fi
	# One TCG thread for all vCPUs, as the lab's guests have
	# (scripts/qemu-tcg-single): qemu's default, a thread per vCPU, was
	# seen to hang many-vCPU boots on a loaded host.
	cat >"$d/power-on.sh" <<EOF
#!/bin/sh
# The server's power: ipmi_sim runs this at power on and kills it at off.
exec qemu-system-x86_64 -machine pc -accel tcg,thread=single \\
    -cpu "$SRV_CPU" -m $mem $topo \\
    $boot \\
    -display none -monitor none -pidfile $d/qemu.pid \\
    -chardev file,id=s0,path=$d/console.log,append=on -serial chardev:s0 \\
    -netdev user,id=n0,restrict=on,hostfwd=tcp:$addr:22-:22 \\
    -device virtio-net-pci,netdev=n0 \\
    -chardev socket,id=ipmi0,host=127.0.0.1,port=$((port + 1)),reconnect=1 \\
    -device ipmi-bmc-extern,id=bmc0,chardev=ipmi0 \\
    -device isa-ipmi-kcs,bmc=bmc0
EOF
	chmod 755 "$d/power-on.sh"
}

# Writes the board's firmware environment $1 (qemu's second flash bank):
# U-Boot's default environment, read from u-boot.bin, and where an
# extlinux entry's FDT is loaded, which Debian's qemu_arm64 build leaves
# unset: above the kernel (0x40400000) and initrd (0x44000000) addresses.
srv_uboot_env()
{
	local env=$1

	{
		tr '\0' '\n' <"$UBOOT" |
		    sed -n '/^bootcmd=run distro_bootcmd$/,/^$/{/^$/d;p}'
		echo "fdt_addr_r=0x48000000"
	} >"$env.txt"
	grep -q '^boot_targets=' "$env.txt" ||
	    srv_die "no default environment found in $UBOOT"
	mkenvimage -s 0x40000 -o "$env" "$env.txt" ||
	    srv_die "mkenvimage failed (u-boot-tools)"
	truncate -s 64M "$env"
}

# Writes DTB $3: the device tree of board dir $1 (qemu's, dumped with the
# board's machine, CPUs and memory) with L2 caches shared by the groups of
# $2 ("0-8;9-17"), as a board's own .dtb describes them; a job boots a
# kernel with it through "dtb:".  Needs dtc (device-tree-compiler).
srv_uboot_dtb()
{
	local d=$1 groups=$2 out=$3 tmp

	[ -r "$d/machine-args" ] || srv_die "$d is no uboot board (up first)"
	command -v dtc >/dev/null || srv_die "no dtc (device-tree-compiler)"
	tmp=$(mktemp -d)
	# With the board's firmware too: qemu's virt leaves the GPIO keys out
	# of a machine whose firmware is loaded, and a tree that names them
	# hangs the kernel probing a pl061 that is not there.
	# shellcheck disable=SC2046
	qemu-system-aarch64 $(sed "s/^-machine virt,/-machine virt,dumpdtb=${tmp//\//\\/}\/qemu.dtb,/" "$d/machine-args") \
	    -bios "$UBOOT" -display none >/dev/null 2>&1 ||
	    { rm -rf "$tmp"; srv_die "qemu could not dump the board's device tree"; }
	dtc -q -I dtb -O dts -o "$tmp/qemu.dts" "$tmp/qemu.dtb"
	awk -v groups="$groups" '
	BEGIN {
		n = split(groups, g, ";")
		for (i = 1; i <= n; i++) {
			split(g[i], r, "-")
			for (c = r[1]; c <= (r[2] == "" ? r[1] : r[2]); c++)
				of[c] = i - 1
		}
	}
	# The caches beside /cpus: a node lists its properties first.
	$1 == "cpus" && $2 == "{" {
		for (i = 0; i < n; i++)
			printf "\tl2_%d: l2-cache%d {\n\t\tcompatible = \"cache\";\n\t\tcache-level = <2>;\n\t\tcache-unified;\n\t};\n", i, i
		print
		next
	}
	$1 ~ /^cpu@[0-9]+$/ && $2 == "{" {
		print
		printf "\t\t\tnext-level-cache = <&l2_%d>;\n", of[substr($1, 5) + 0]
		next
	}
	{ print }' "$tmp/qemu.dts" >"$tmp/board.dts"
	dtc -q -I dts -O dtb -o "$out" "$tmp/board.dts" ||
	    { rm -rf "$tmp"; srv_die "dtc rejected the board's device tree"; }
	rm -rf "$tmp"
}

# The board's power-on script (server dir $1, address $2, topology
# arguments $3, $4 MiB): qemu's virt machine with U-Boot as its firmware
# and its environment in the second flash bank, one TCG thread for all
# vCPUs as the x86 stand-ins have (an 18-vCPU board with qemu's default, a
# thread per vCPU, was seen to stop right after its init started sshd on
# a loaded host).  No IPMI device: ipmi_sim powers it off by killing qemu.
# The machine's arguments come from machine-args (srv_up).
srv_uboot_power_script()
{
	local d=$1 addr=$2 topo=$3 mem=$4

	srv_uboot_env "$d/uboot-env.img"
	cat >"$d/power-on.sh" <<EOF
#!/bin/sh
# The board's power: ipmi_sim runs this at power on and kills it at off.
exec qemu-system-aarch64 $(cat "$d/machine-args") -accel tcg,thread=single \\
    -bios $UBOOT \\
    -drive if=pflash,unit=1,format=raw,file=$d/uboot-env.img \\
    -drive file=$d/disk.img,if=virtio,format=raw \\
    -display none -monitor none -pidfile $d/qemu.pid \\
    -chardev socket,id=s0,path=$d/console.sock,server=on,wait=off,logfile=$d/console.log,logappend=on \\
    -serial chardev:s0 \\
    -netdev user,id=n0,restrict=on,hostfwd=tcp:$addr:22-:22 \\
    -device virtio-net-pci,netdev=n0
EOF
	chmod 755 "$d/power-on.sh"
}

# Writes the machine file of server dir $1: kind $2, address $3, sockets
# $4, cores $5, threads $6.
srv_machine_file()
{
	local d=$1 kind=$2 addr=$3 s=$4 c=$5 t=$6 name
	local arch=x86_64 cpu="EPYC stand-in (qemu Nehalem)" method=$2
	local console="{file: $d/console.log, dir: $d/consoles}" llc=""

	name=$(basename "$d")
	[ -z "${SERVER_LLC_GROUPS:-}" ] ||
	    llc=", llc_groups: \"$SERVER_LLC_GROUPS\""
	if [ "$kind" = uboot ]; then
		arch=aarch64 cpu="arm64 board stand-in (qemu cortex-a57)"
		method=extlinux
		console="{command: [socat, -, 'UNIX-CONNECT:$d/console.sock'], dir: $d/consoles}"
	fi
	echo "$addr $(cut -d' ' -f1-2 "$LAB_DIR/keys/host_ed25519.pub")" \
	    >"$d/known_hosts"
	cat >"$d/$name.yaml" <<EOF
# A bare-metal stand-in written by scripts/lab-server.sh.
name: $name
kind: ssh
arch: $arch
cpu_model: $cpu
topology: {sockets: $s, cores: $c, threads: $t, numa_nodes: $s$llc}
ssh:
  host: $addr
  identity: $LAB_DIR/keys/lab_ed25519
  known_hosts: $d/known_hosts
  connect_timeout: 5s
  command_timeout: 120s
power:
  boot_timeout: 300s
  ipmi: {host: 127.0.0.1, port: $(cat "$d/bmc/port"), user: lab, password_file: $d/bmc/password}
boot:
  method: $method
  known_good: $KNOWN_GOOD
  timeout: ${SERVER_BOOT_TIMEOUT:-300s}
  console: $console
EOF
}

# ipmitool against the BMC of server dir $1.
srv_ipmi()
{
	local d=$1

	shift
	ipmitool -I lanplus -C 3 -H 127.0.0.1 -p "$(cat "$d/bmc/port")" \
	    -U lab -f "$d/bmc/password" "$@"
}

# Starts the BMC of server dir $1 and powers the server on through it.
srv_power_on()
{
	local d=$1 i

	setsid ipmi_sim -c "$d/bmc/lan.conf" -f "$d/bmc/lab.emu" \
	    -s "$d/bmc" -n </dev/null >"$d/bmc/sim.log" 2>&1 &
	echo $! >"$d/bmc/sim.pid"
	for i in $(seq 1 50); do
		srv_ipmi "$d" chassis power status >/dev/null 2>&1 && break
		sleep 0.1
	done
	srv_ipmi "$d" chassis power on >/dev/null ||
	    srv_die "the BMC of $d does not answer: $(tail -3 "$d/bmc/sim.log")"
}

# The known-good kernel of a server of kind $1.
srv_known_good()
{
	case $1 in
	kexec)
		ls "$LAB_DIR/kernels" | sed -n 's/^vmlinuz-//p' | sort -V |
		    head -n 1
		;;
	grub)
		srv_image
		cat "$DISK.release"
		;;
	uboot)
		[ -r "$UBOOT" ] || srv_die "no $UBOOT (u-boot-qemu)"
		find "$LAB_DIR/kernels-arm64" -maxdepth 1 -name 'vmlinuz-*' \
		    -printf '%f\n' 2>/dev/null |
		    sed -n 's/^vmlinuz-//p' | sort -V | head -n 1
		;;
	*) srv_die "kind must be kexec, grub or uboot, not \"$1\"" ;;
	esac
}

# True if process $1 is a qemu of the servers' (its -pidfile is a
# servers/NAME/qemu.pid, or $2 exactly when given).
srv_is_qemu()
{
	local args

	args=$(tr '\0' ' ' 2>/dev/null </proc/"$1"/cmdline) || return 1
	case $args in
	qemu-system-*) ;;
	*) return 1 ;;
	esac
	if [ -n "${2:-}" ]; then
		case $args in *"-pidfile $2 "*) return 0 ;; esac
		return 1
	fi
	echo "$args" | grep -q -- '-pidfile [^ ]*/servers/[^ ]*/qemu.pid'
}

# Makes sure nothing listens on $1:22: a stand-in an interrupted run left
# there (its qemu runs from a servers/ directory) is stopped, anything
# else is an error.
srv_addr_free()
{
	local pid

	for pid in $(ss -Hltnp "sport = :22" | awk -v a="$1:22" \
	    '$4 == a || $4 ~ /^(0\.0\.0\.0|\*|\[::\]):22$/' |
	    grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u); do
		if srv_is_qemu "$pid"; then
			srv_say "stopping a stand-in left on $1:22 (pid $pid)"
			kill -KILL "$pid"
		else
			srv_die "$1:22 is taken by pid $pid ($(tr '\0' ' ' </proc/"$pid"/cmdline | cut -c1-80))"
		fi
	done
	for _ in $(seq 1 50); do
		ss -Hltn "src = $1 and sport = :22" | grep -q . || return 0
		sleep 0.1
	done
	srv_die "$1:22 is still taken"
}

# Brings server $1 up: kind $2, address $3, sockets $4 x cores $5 x
# threads $6, $7 MiB of memory.
srv_up()
{
	local name=$1 kind=$2 addr=$3 s=${4:-1} c=${5:-2} t=${6:-1}
	local mem=${7:-1024} d=$DIR/$1 port topo

	case $addr in
	127.*) ;;
	*) srv_die "ADDR must be a loopback address (127.x.y.z), not $addr" ;;
	esac
	topo=$(srv_topology "$s" "$c" "$t" "$mem" | xargs)
	KNOWN_GOOD=$(srv_known_good "$kind")
	[ -n "$KNOWN_GOOD" ] || srv_die "no known-good kernel (lab.sh up)"
	srv_down "$name"
	srv_addr_free "$addr"
	rm -rf "$d"
	mkdir -p "$d/consoles"
	if [ "$kind" = grub ]; then
		qemu-img create -q -f qcow2 -F raw -b "$DISK" "$d/disk.qcow2"
	elif [ "$kind" = uboot ]; then
		# The machine's qemu arguments, which a dumped device tree
		# (srv_uboot_dtb) must share with the board's power-on.
		echo "-machine virt,gic-version=3 -cpu cortex-a57 -m $mem $topo" \
		    >"$d/machine-args"
		srv_uboot_disk "$d/disk.img"
	fi
	port=$(bmc_free_port) || srv_die "no free port for a BMC"
	bmc_write_config "$d/bmc" "$name" "$port" "$d/power-on.sh" false 5 5
	echo "$port" >"$d/bmc/port"
	srv_power_script "$d" "$kind" "$addr" "$topo" "$mem"
	srv_machine_file "$d" "$kind" "$addr" "$s" "$c" "$t"
	srv_power_on "$d"
	cat <<EOF
SERVER_DIR=$d
SERVER_FILE=$d/$name.yaml
SERVER_BMC_PORT=$(cat "$d/bmc/port")
SERVER_CONSOLE=$d/console.log
SERVER_KNOWN_GOOD=$KNOWN_GOOD
EOF
}

# Waits up to $2 tenths of a second for process $1 to be gone (or a
# zombie: its parent may be gone too, and init reaps it when it will).
srv_gone()
{
	local i

	for i in $(seq 1 "$2"); do
		case $(awk '{ print $3 }' /proc/"$1"/stat 2>/dev/null) in
		"" | Z) return 0 ;;
		esac
		sleep 0.1
	done
	return 1
}

# Stops server $1: its BMC, then its qemu (SIGTERM, SIGKILL after 3 s).
# Each by its pid: the BMC's from sim.pid, the qemus from qemu.pid and as
# the BMC's children (a power cycle may be between two qemus).
srv_down()
{
	local d=$DIR/$1 sim="" pids="" p

	if [ -s "$d/bmc/sim.pid" ]; then
		sim=$(cat "$d/bmc/sim.pid")
		if [ "$(cat /proc/"$sim"/comm 2>/dev/null)" = ipmi_sim ]; then
			# Stopped, it powers nothing on while it is taken down.
			kill -STOP "$sim"
			pids=$(pgrep -P "$sim" || true)
		else
			sim=
		fi
	fi
	[ -s "$d/qemu.pid" ] && pids="$pids $(cat "$d/qemu.pid")"
	if [ -n "$sim" ]; then
		kill -KILL "$sim"
		kill -CONT "$sim" 2>/dev/null || true
		srv_gone "$sim" 30 || true
	fi
	for p in $pids; do
		srv_is_qemu "$p" "$d/qemu.pid" || continue
		kill -TERM "$p" 2>/dev/null || true
		srv_gone "$p" 30 || kill -KILL "$p" 2>/dev/null || true
		srv_gone "$p" 30 || srv_say "qemu $p of $d does not go away"
	done
	rm -f "$d/bmc/sim.pid" "$d/qemu.pid"
	return 0
}

# A command that fails unexpectedly is named with its line; what it
# printed went to stderr above.
trap 'srv_say "error: \"$BASH_COMMAND\" failed (exit status $?, line $LINENO)"' ERR
[ "$(id -u)" = 0 ] || srv_die "run as root"
case ${1:-} in
image) srv_image ;;
disk) srv_disk "$2" "$3" ;;
up)
	shift
	[ $# -ge 3 ] || srv_die "usage: up NAME KIND ADDR [S C T [MEM]]"
	srv_up "$@"
	;;
down) srv_down "${2:?usage: down NAME}" ;;
dtb)
	[ $# -ge 4 ] || srv_die "usage: dtb NAME GROUPS OUT"
	srv_uboot_dtb "$DIR/$2" "$3" "$4"
	;;
*)
	echo "usage: $0 image | up NAME KIND ADDR [S C T [MEM]] | down NAME |" \
	    "dtb NAME GROUPS OUT" >&2
	exit 2
	;;
esac
