#!/usr/bin/env bash
# The VM lab on this machine: libvirtd (qemu:///system, TCG only), two
# prebuilt Debian cloud kernels ("base" and "patched") and a host image
# (an initramfs built from this machine's own binaries: busybox, sshd,
# sftp-server, hackbench, kexec) that boots with either kernel.  Every VM is
# reached over a qemu user-network port forward on a loopback address;
# nothing leaves this machine.
#
#	scripts/lab.sh up	# install, start libvirtd, fetch, build, print env
#	scripts/lab.sh down	# destroy and undefine every hilab-* domain
#	scripts/lab.sh status	# what is there
#	scripts/lab.sh kernels	# only fetch the two kernels into the cache
#	scripts/lab.sh arm64	# the arm64 kernel, image and VM (vma64)
#
# up is idempotent and fast once done: kernels are cached, the image is
# rebuilt only when this script or the kernels change.  Run as root.
# HILAB_LAB_DIR (default /var/lib/hilab/lab) and HILAB_KERNEL_CACHE
# (default /var/cache/hilab/kernels) move the two directories;
# HILAB_LAB_KERNELS="PKG1 PKG2" names the kernel packages instead of the
# two newest.
set -eEu

LAB_DIR=${HILAB_LAB_DIR:-/var/lib/hilab/lab}
CACHE=${HILAB_KERNEL_CACHE:-/var/cache/hilab/kernels}
URI=qemu:///system
# qemu runs as libvirt-qemu and cannot bind ports below 1024: each VM's
# sshd is forwarded from port 2222 of its own loopback address.
SSH_PORT=2222
PACKAGES="libvirt-daemon libvirt-daemon-driver-qemu libvirt-clients
libvirt-dev qemu-system-x86 qemu-utils busybox-static openssh-server
openssh-sftp-server rt-tests kmod cpio xz-utils zstd kexec-tools binutils"
# The x86 guests' emulator (machines/machine.h, MACHINE_QEMU_SINGLE): qemu
# with one TCG thread for all vCPUs, which boots a 32-vCPU guest on a loaded
# host without the hangs of qemu's default, one thread per vCPU.
SINGLE=/usr/local/libexec/hilab/qemu-tcg-single
# Modules the image loads when the kernel has them as modules.
MODULES="virtio_pci virtio_net virtio_rng virtio_blk pvpanic_mmio"
SELF=$(readlink -f "$0")
# What the image is built from and named: this machine's own binaries and
# the x86 kernels, or (lab.sh arm64) Debian's arm64 packages and kernel.
SYSROOT=/
IMAGE=image
KDIR=kernels
KNOWN=known_hosts
MACH_ARCH=x86_64
CPU_MODEL=Nehalem
# Words the machine files' command line has after rt_group_sched=0.
MACH_CMDLINE=
# The topology's clusters line, when set (lab.sh arm64).
MACH_CLUSTERS=
BOOT_TIMEOUT=120s
EMULATOR=$SINGLE
# The arm64 image's packages (Debian's, extracted, never installed here)
# and the arm64 VM's vCPUs (the Ampere Altra stand-in, under TCG).
ARM64_PACKAGES="busybox-static openssh-server openssh-sftp-server rt-tests
util-linux kexec-tools"
ARM64_VCPUS=${HILAB_LAB_ARM64_VCPUS:-8}

# Prints a message to stderr.
lab_say()
{
	echo "lab: $*" >&2
}

# Stops with a message.
lab_die()
{
	echo "lab: error: $*" >&2
	exit 1
}

# Installs whatever of $PACKAGES is missing.
lab_packages()
{
	local p missing=

	for p in $PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		    grep -q 'ok installed' || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	lab_say "installing$missing"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
	    --no-install-recommends $missing >&2
}

# Creates the users, groups and directories libvirtd's QEMU driver needs.
lab_accounts()
{
	mkdir -p /var/log/libvirt /var/run/libvirt /var/lib/libvirt
	getent group libvirt-qemu >/dev/null || groupadd -r libvirt-qemu
	getent group kvm >/dev/null || groupadd -r kvm
	id libvirt-qemu >/dev/null 2>&1 ||
	    useradd -r -g libvirt-qemu -G kvm -d /var/lib/libvirt \
	    -s /usr/sbin/nologin libvirt-qemu
	# As Debian's udev rule sets it.  libvirtd probes qemu with KVM
	# while libvirt-qemu cannot open a root-only /dev/kvm: it then
	# finds its capability cache outdated on every look-up and probes
	# qemu again and again (a define takes 45 s instead of 0.1 s).
	# Domains stay type='qemu' (TCG) all the same.
	if [ -c /dev/kvm ]; then
		chgrp kvm /dev/kvm
		chmod 660 /dev/kvm
	fi
}

# Installs the single-threaded TCG wrapper where libvirt-qemu can run it.
lab_emulator()
{
	local src

	src=$(dirname "$SELF")/qemu-tcg-single
	cmp -s "$src" "$SINGLE" && return 0
	install -D -m 755 "$src" "$SINGLE"
	chmod 755 "$(dirname "$SINGLE")"
	lab_say "installed $SINGLE"
}

# Starts virtlogd and libvirtd unless qemu:///system answers already.
lab_libvirtd()
{
	local i f

	lab_accounts
	virsh -q -c "$URI" uri >/dev/null 2>&1 && return 0
	pgrep -x virtlogd >/dev/null || virtlogd -d
	pgrep -x libvirtd >/dev/null || libvirtd -d
	for i in $(seq 100); do
		virsh -q -c "$URI" uri >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	pgrep -x libvirtd >/dev/null || lab_say "libvirtd is not running"
	for f in /var/log/libvirt/libvirtd.log /var/log/libvirt/virtlogd.log; do
		[ -s "$f" ] && { lab_say "last lines of $f:"; tail -n 15 "$f" >&2; }
	done
	lab_die "libvirtd does not answer on $URI"
}

# Prints the two newest cloud kernel packages of arch $1 (default amd64)
# of Debian 12's own series (6.1.0-ABI), oldest first.  The 6.12 "+deb12"
# packages apt also lists are left out: under TCG they take 2-3 times as
# long to boot.
lab_kernel_packages()
{
	local arch=${1:-amd64}

	apt-cache search --names-only "linux-image-.*-cloud-$arch" |
	    awk '{ print $1 }' |
	    grep -E "^linux-image-[0-9]+\.[0-9]+\.[0-9]+-[0-9]+-cloud-$arch\$" |
	    sort -V | tail -n 2
}

# Downloads and unpacks kernel package $1 (PKG or PKG:ARCH) into the
# cache (once).
lab_kernel_fetch()
{
	local pkg=$1 ver dir tmp

	ver=${pkg%:*}
	ver=${ver#linux-image-}
	dir=$CACHE/$ver
	[ -f "$dir/boot/vmlinuz-$ver" ] && return 0
	lab_say "fetching $pkg"
	tmp=$(mktemp -d "$CACHE/.fetch.XXXXXX")
	chmod 755 "$tmp"
	(cd "$tmp" && apt-get download -q "$pkg" 2>/dev/null >&2) ||
	    (cd "$tmp" && apt-get download -q "$pkg" >&2) ||
	    { rm -rf "$tmp"; lab_die "cannot download $pkg"; }
	mkdir -p "$tmp/x"
	dpkg -x "$tmp"/*.deb "$tmp/x"
	[ -f "$tmp/x/boot/vmlinuz-$ver" ] ||
	    { rm -rf "$tmp"; lab_die "$pkg has no boot/vmlinuz-$ver"; }
	rm -rf "$dir"
	mv "$tmp/x" "$dir"
	rm -rf "$tmp"
}

# Fetches the two newest kernels; sets KVERS to their versions, oldest first.
lab_kernels()
{
	local pkgs p

	mkdir -p "$CACHE"
	chmod 755 "$CACHE"
	pkgs=${HILAB_LAB_KERNELS:-$(lab_kernel_packages || true)}
	pkgs=$(echo $pkgs | tr ' ' '\n')
	if [ "$(echo "$pkgs" | grep -c .)" != 2 ]; then
		lab_say "apt lists no two cloud kernels: using the cache"
		pkgs=$(ls "$CACHE" | grep -v '^\.' | sort -V | tail -n 2 |
		    sed 's/^/linux-image-/')
		[ "$(echo "$pkgs" | grep -c .)" = 2 ] ||
		    lab_die "no two kernels in $CACHE"
	fi
	KVERS=
	for p in $pkgs; do
		lab_kernel_fetch "$p"
		KVERS="$KVERS ${p#linux-image-}"
	done
	KVERS=${KVERS# }
}

# Prints where library $2 (a soname) of sysroot $1 lies, as an absolute
# path inside the sysroot, or nothing.
lab_find_lib()
{
	local sys=${1%/} so=$2 d

	for d in lib/x86_64-linux-gnu usr/lib/x86_64-linux-gnu \
	    lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu lib usr/lib \
	    lib64 usr/lib64; do
		[ -e "$sys/$d/$so" ] && { echo "/$d/$so"; return 0; }
	done
	return 0
}

# Copies file $3 of sysroot $2 (/ for this machine's own) into root $1,
# then its program interpreter and every library it needs, as readelf
# reads them: no program of the sysroot's arch is run.
lab_copy_bin()
{
	local root=$1 sys=${2%/} bin=$3 so lib

	[ -e "$root$bin" ] && return 0
	install -D -m 755 "$(readlink -f "$sys$bin")" "$root$bin"
	lib=$(readelf -lW "$sys$bin" 2>/dev/null |
	    sed -n 's/.*program interpreter: \(.*\)]$/\1/p')
	[ -z "$lib" ] || lab_copy_bin "$root" "$sys" "$lib"
	for so in $(readelf -dW "$sys$bin" 2>/dev/null |
	    sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
		lib=$(lab_find_lib "$sys" "$so")
		[ -n "$lib" ] || lab_die "$bin needs $so: not in ${sys:-/}"
		lab_copy_bin "$root" "$sys" "$lib"
	done
}

# Prints the file of module $2 in kernel tree $1, or nothing.
lab_module_file()
{
	local mods=$1 name=$2 alt

	alt=$(echo "$name" | tr _ -)
	find "$mods/kernel" \( -name "$name.ko" -o -name "$name.ko.*" \
	    -o -name "$alt.ko" -o -name "$alt.ko.*" \) | head -n 1
}

# Copies module $3 of kernel $2 and its dependencies into root $1,
# uncompressed, and lists it in the image's hilab.modules.
lab_copy_module()
{
	local root=$1 ver=$2 name=$3 mods f rel dst d

	mods=$CACHE/$ver/lib/modules/$ver
	f=$(lab_module_file "$mods" "$name")
	[ -n "$f" ] || return 0	# built in, or absent
	rel=${f#$mods/}
	rel=${rel%.xz}
	rel=${rel%.zst}
	rel=${rel%.gz}
	dst=$root/lib/modules/$ver/$rel
	[ -f "$dst" ] && return 0
	for d in $(modinfo -F depends "$f" | tr , ' '); do
		lab_copy_module "$root" "$ver" "$d"
	done
	mkdir -p "$(dirname "$dst")"
	case $f in
	*.xz) xz -dc "$f" >"$dst" ;;
	*.zst) zstd -q -dc "$f" >"$dst" ;;
	*.gz) gzip -dc "$f" >"$dst" ;;
	*) cp "$f" "$dst" ;;
	esac
	echo "$name" >>"$root/lib/modules/$ver/hilab.modules"
}

# Writes the image's configuration: users, sshd, init.
lab_image_etc()
{
	local root=$1

	cat >"$root/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
sshd:x:100:65534:sshd:/run/sshd:/usr/sbin/nologin
nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin
EOF
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	echo 'root:*:19000:0:99999:7:::' >"$root/etc/shadow"
	chmod 600 "$root/etc/shadow"
	echo hilab-vm >"$root/etc/hostname"
	cat >"$root/etc/ssh/sshd_config" <<'EOF'
Port 22
HostKey /etc/ssh/ssh_host_ed25519_key
PidFile /run/sshd.pid
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
StrictModes no
PrintMotd no
PrintLastLog no
AuthorizedKeysFile /root/.ssh/authorized_keys
Subsystem sftp /usr/lib/openssh/sftp-server
EOF
	cat >"$root/etc/inittab" <<'EOF'
::sysinit:/etc/init.d/rcS
::ctrlaltdel:/sbin/reboot
::shutdown:/bin/sync
EOF
	cat >"$root/etc/init.d/rcS" <<'EOF'
#!/bin/sh
# Boots the lab host: file systems, virtio modules, eth0, sshd.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm /run/sshd
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t cgroup2 cgroup2 /sys/fs/cgroup
mount -t debugfs debugfs /sys/kernel/debug
hostname -F /etc/hostname
# hilab.nosftp: an sshd without the SFTP subsystem, as dropbear on boards
# (scripts/lab-server.sh's kexec stand-in, SERVER_CMDLINE).
if grep -qw hilab.nosftp /proc/cmdline; then
	sed -i '/^Subsystem/d' /etc/ssh/sshd_config
fi
ver=$(uname -r)
for m in $(cat /lib/modules/$ver/hilab.modules 2>/dev/null); do
	modprobe $m || echo "hilab: modprobe $m failed"
done
# hilab.bootfs=DEV: a board's boot partition, which its U-Boot reads
# extlinux/extlinux.conf and the kernels from, mounted at /boot.
bootfs=$(sed -n 's/.*hilab\.bootfs=\([^ ]*\).*/\1/p' /proc/cmdline)
if [ -n "$bootfs" ]; then
	i=0
	while [ ! -b "$bootfs" ] && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	mkdir -p /boot
	mount "$bootfs" /boot || echo "hilab: cannot mount $bootfs at /boot"
fi
ip link set lo up
i=0
while [ ! -e /sys/class/net/eth0 ] && [ $i -lt 50 ]; do
	sleep 0.1
	i=$((i + 1))
done
ip addr add 10.0.2.15/24 dev eth0
ip link set eth0 up
ip route add default via 10.0.2.2
/usr/sbin/sshd && echo "hilab: sshd up on $ver"
EOF
	chmod 755 "$root/etc/init.d/rcS"
}

# Makes the lab's client key and the image's fixed host key (once).
lab_keys()
{
	mkdir -p "$LAB_DIR/keys"
	chmod 700 "$LAB_DIR/keys"
	[ -f "$LAB_DIR/keys/lab_ed25519" ] ||
	    ssh-keygen -q -t ed25519 -N '' -C hilab-lab \
	    -f "$LAB_DIR/keys/lab_ed25519"
	[ -f "$LAB_DIR/keys/host_ed25519" ] ||
	    ssh-keygen -q -t ed25519 -N '' -C hilab-vm \
	    -f "$LAB_DIR/keys/host_ed25519"
}

# Lays out the image's root in directory $1.
lab_image_root()
{
	local root=$1 a b v m

	mkdir -p "$root"/usr/bin "$root"/usr/sbin "$root"/usr/lib64 \
	    "$root"/usr/lib/openssh
	ln -s usr/bin "$root/bin"
	ln -s usr/sbin "$root/sbin"
	ln -s usr/lib "$root/lib"
	ln -s usr/lib64 "$root/lib64"
	mkdir -p "$root"/etc/ssh "$root"/etc/init.d "$root"/proc "$root"/sys \
	    "$root"/dev "$root"/run "$root"/tmp "$root"/var/tmp "$root"/mnt \
	    "$root"/root/.ssh "$root"/lib/modules
	chmod 1777 "$root/tmp" "$root/var/tmp"
	chmod 700 "$root/root/.ssh"
	# The applets as this machine's busybox lists them: the image's own
	# may be of another arch (the same Debian version lists the same).
	install -m 755 "$SYSROOT/bin/busybox" "$root/bin/busybox"
	for a in $(/bin/busybox --list-full); do
		[ -e "$root/$a" ] || [ -L "$root/$a" ] ||
		    ln -s /bin/busybox "$root/$a"
	done
	ln -sf /bin/busybox "$root/init"
	mknod -m 600 "$root/dev/console" c 5 1
	mknod -m 666 "$root/dev/null" c 1 3
	for b in /usr/sbin/sshd /usr/lib/openssh/sftp-server \
	    /usr/bin/hackbench /usr/sbin/kexec /usr/bin/lscpu; do
		# A sysroot of extracted packages has no merged /usr: Debian
		# 12's kexec-tools puts kexec in /sbin (the image's /sbin is
		# its /usr/sbin).
		[ -x "$SYSROOT$b" ] || [ ! -x "$SYSROOT${b#/usr}" ] ||
		    b=${b#/usr}
		[ -x "$SYSROOT$b" ] && lab_copy_bin "$root" "$SYSROOT" "$b"
	done
	# The sanitizer runtimes, for an agent from a sanitized build.
	for b in /usr/lib/x86_64-linux-gnu/libasan.so.[0-9] \
	    /usr/lib/x86_64-linux-gnu/libubsan.so.[0-9]; do
		[ "$SYSROOT" = / ] && [ -e "$b" ] &&
		    lab_copy_bin "$root" / "$b"
	done
	lab_image_etc "$root"
	install -m 600 "$LAB_DIR/keys/host_ed25519" \
	    "$root/etc/ssh/ssh_host_ed25519_key"
	install -m 644 "$LAB_DIR/keys/host_ed25519.pub" \
	    "$root/etc/ssh/ssh_host_ed25519_key.pub"
	install -m 600 "$LAB_DIR/keys/lab_ed25519.pub" \
	    "$root/root/.ssh/authorized_keys"
	for v in $KVERS; do
		mkdir -p "$root/lib/modules/$v"
		: >"$root/lib/modules/$v/hilab.modules"
		for m in $MODULES; do
			lab_copy_module "$root" "$v" "$m"
		done
		/bin/busybox depmod -b "$root" "$v"
	done
}

# Builds the initramfs and copies the kernels unless they are up to date.
lab_image()
{
	local stamp root v

	mkdir -p "$LAB_DIR/$KDIR"
	chmod 755 /var/lib/hilab 2>/dev/null || true
	chmod 755 "$LAB_DIR" "$LAB_DIR/$KDIR"
	lab_keys
	stamp="$(sha256sum "$SELF" | cut -c1-16) $KVERS"
	if [ -f "$LAB_DIR/$IMAGE.cpio.gz" ] &&
	    [ "$(cat "$LAB_DIR/$IMAGE.stamp" 2>/dev/null)" = "$stamp" ]; then
		return 0
	fi
	lab_say "building the host image for $KVERS"
	rm -rf "$LAB_DIR"/.root.*	# left by a build that failed
	root=$(mktemp -d "$LAB_DIR/.root.XXXXXX")
	lab_image_root "$root"
	(cd "$root" && find . | LC_ALL=C sort |
	    cpio -o -H newc -R 0:0 --quiet) | gzip -6 >"$LAB_DIR/.$IMAGE.tmp"
	rm -rf "$root"
	chmod 644 "$LAB_DIR/.$IMAGE.tmp"
	mv "$LAB_DIR/.$IMAGE.tmp" "$LAB_DIR/$IMAGE.cpio.gz"
	rm -f "$LAB_DIR/$KDIR"/vmlinuz-*
	for v in $KVERS; do
		install -m 644 "$CACHE/$v/boot/vmlinuz-$v" \
		    "$LAB_DIR/$KDIR/vmlinuz-$v"
	done
	echo "$stamp" >"$LAB_DIR/$IMAGE.stamp"
}

# Writes one machine file: name $1, loopback address $2, sockets $3,
# cores $4, threads $5, memory $6, NUMA cells (0 = none) $7.
lab_machine()
{
	local name=$1 addr=$2 s=$3 c=$4 t=$5 mem=$6 cells=$7 n per i

	n=$((s * c * t))
	{
		echo "# Lab VM written by scripts/lab.sh: $n vCPUs under TCG."
		echo "name: $name"
		echo "kind: libvirt"
		echo "arch: $MACH_ARCH"
		echo "topology:"
		echo "  sockets: $s"
		[ -z "$MACH_CLUSTERS" ] || echo "  clusters: $MACH_CLUSTERS"
		echo "  cores: $c"
		echo "  threads: $t"
		echo "ssh:"
		echo "  host: $addr"
		echo "  port: $SSH_PORT"
		echo "  identity: $LAB_DIR/keys/lab_ed25519"
		echo "  known_hosts: $LAB_DIR/keys/$KNOWN"
		echo "  connect_timeout: 30s"
		echo "libvirt:"
		echo "  uri: $URI"
		echo "  vcpus: $n"
		echo "  memory: ${mem}M"
		echo "  cpu_model: $CPU_MODEL"
		if [ "$cells" -gt 0 ]; then
			echo "  numa_cells:"
			per=$((n / cells))
			for i in $(seq 0 $((cells - 1))); do
				echo "    - cpus: $((i * per))-$((i * per + per - 1))"
				echo "      memory: $((mem / cells))M"
			done
		fi
		echo "  cmdline: rt_group_sched=0${MACH_CMDLINE:+ $MACH_CMDLINE}"
		echo "  console_dir: $LAB_DIR/console"
		echo "  kernel: $LAB_DIR/$KDIR/vmlinuz-${KVERS%% *}"
		echo "  initrd: $LAB_DIR/$IMAGE.cpio.gz"
		echo "  boot_timeout: $BOOT_TIMEOUT"
		echo "  emulator: $EMULATOR"
		echo "  boot_tries: 3"
	} >"$LAB_DIR/machines/$name.yaml"
	echo "[$addr]:$SSH_PORT $(cut -d' ' -f1-2 "$LAB_DIR/keys/host_ed25519.pub")" \
	    >>"$LAB_DIR/keys/$KNOWN.new"
}

# Writes the lab's machine files and the known_hosts they share.
lab_machines()
{
	mkdir -p "$LAB_DIR/machines" "$LAB_DIR/console"
	chown libvirt-qemu:libvirt-qemu "$LAB_DIR/console"
	chmod 755 "$LAB_DIR/console"
	: >"$LAB_DIR/keys/$KNOWN.new"
	if [ "$IMAGE" = image ]; then
		lab_machine vm32 127.0.0.11 2 8 2 4096 2
		lab_machine vm4 127.0.0.12 1 2 2 1024 0
	else
		lab_machine vma64 127.0.0.13 1 "$ARM64_VCPUS" 1 2048 0
	fi
	mv "$LAB_DIR/keys/$KNOWN.new" "$LAB_DIR/keys/$KNOWN"
}

# Prints the environment that points hilab and the lab tests at the lab.
lab_env()
{
	local base patched

	base=${KVERS%% *}
	patched=${KVERS##* }
	echo "export HILAB_MACHINES=$LAB_DIR/machines"
	echo "export HILAB_LAB_DIR=$LAB_DIR"
	echo "export HILAB_LAB_INITRD=$LAB_DIR/image.cpio.gz"
	echo "export HILAB_LAB_KERNEL_BASE=$LAB_DIR/kernels/vmlinuz-$base"
	echo "export HILAB_LAB_KERNEL_PATCHED=$LAB_DIR/kernels/vmlinuz-$patched"
	echo "export HILAB_LAB_RELEASE_BASE=$base"
	echo "export HILAB_LAB_RELEASE_PATCHED=$patched"
}

# Brings the whole lab up and prints its environment.
lab_up()
{
	lab_packages
	lab_emulator
	lab_libvirtd
	lab_kernels
	lab_image
	lab_machines
	lab_env | tee "$LAB_DIR/env"
}

# Makes apt know arm64 packages (once): their lists, beside amd64's.
lab_arm64_apt()
{
	dpkg --print-foreign-architectures | grep -qx arm64 && return 0
	lab_say "adding the arm64 architecture to apt"
	dpkg --add-architecture arm64
	apt-get update -q >&2 || lab_die "apt-get update failed"
}

# Prints the packages the arm64 image needs: apt's own resolver run on an
# empty package database for arm64 alone, of which those of arch arm64
# (not "all"), perl's and python's aside, are kept.
lab_arm64_closure()
{
	: >"$CACHE/empty-status"
	# shellcheck disable=SC2086
	apt-get -s -q --no-install-recommends \
	    -o Dir::State::status="$CACHE/empty-status" \
	    -o APT::Architecture=arm64 -o APT::Architectures::=arm64 \
	    install $ARM64_PACKAGES | awk '/^Inst .*\[arm64\]\)/ { print $2 }' |
	    grep -vE '^(lib)?(python|perl)'
}

# Extracts the arm64 packages into $CACHE/root (once): the sysroot the
# arm64 image is built from.
lab_arm64_root()
{
	local root=$CACHE/root tmp list p

	[ "$(cat "$root/.hilab-packages" 2>/dev/null)" = "$ARM64_PACKAGES" ] &&
	    return 0
	lab_say "fetching the arm64 packages"
	list=$(lab_arm64_closure || true)
	[ -n "$list" ] ||
	    lab_die "apt resolves no arm64 packages for: $ARM64_PACKAGES"
	tmp=$(mktemp -d "$CACHE/.root.XXXXXX")
	# shellcheck disable=SC2046,SC2086
	(cd "$tmp" && apt-get download -q $(printf '%s:arm64 ' $list) \
	    2>/dev/null >&2) ||
	    (cd "$tmp" && apt-get download -q $(printf '%s:arm64 ' $list) >&2) ||
	    { rm -rf "$tmp"; lab_die "cannot download the arm64 packages"; }
	mkdir "$tmp/root"
	for p in "$tmp"/*.deb; do
		dpkg -x "$p" "$tmp/root"
	done
	echo "$ARM64_PACKAGES" >"$tmp/root/.hilab-packages"
	rm -rf "$root"
	mv "$tmp/root" "$root"
	rm -rf "$tmp"
}

# Brings up the arm64 part of the lab: Debian's two newest arm64 cloud
# kernels, an image of arm64 binaries and the arm64 VM; prints its
# environment.
lab_arm64()
{
	local p

	# u-boot-qemu, u-boot-tools (its saved environment),
	# device-tree-compiler (its .dtb) and socat: the arm64 board
	# (scripts/lab-server.sh).
	PACKAGES="$PACKAGES qemu-system-arm u-boot-qemu u-boot-tools"
	PACKAGES="$PACKAGES device-tree-compiler socat"
	lab_packages
	lab_libvirtd
	lab_arm64_apt
	CACHE=$CACHE/arm64
	mkdir -p "$CACHE"
	chmod 755 "$CACHE"
	KVERS=
	for p in $(lab_kernel_packages arm64); do
		lab_kernel_fetch "$p:arm64"
		KVERS="$KVERS ${p#linux-image-}"
	done
	KVERS=${KVERS# }
	[ "$(echo "$KVERS" | wc -w)" = 2 ] ||
	    lab_die "apt lists no two arm64 cloud kernels"
	lab_arm64_root
	SYSROOT=$CACHE/root IMAGE=image-arm64 KDIR=kernels-arm64
	KNOWN=known_hosts.arm64 MACH_ARCH=aarch64 CPU_MODEL=cortex-a57
	MACH_CMDLINE='' BOOT_TIMEOUT=300s
	# qemu's own threading: the TCG hang of x86 guests is not arm64's
	# (machines/machine.h, MACHINE_QEMU_AARCH64).
	EMULATOR=/usr/bin/qemu-system-aarch64
	# Two clusters of cores, as arm64 SoCs group them (qemu's virt puts
	# them in the device tree's cpu-map), when the vCPUs split evenly.
	[ $((ARM64_VCPUS % 2)) != 0 ] || MACH_CLUSTERS=2
	lab_image
	lab_machines
	{
		echo "export HILAB_LAB_DIR=$LAB_DIR"
		echo "export HILAB_LAB_ARM64_INITRD=$LAB_DIR/$IMAGE.cpio.gz"
		echo "export HILAB_LAB_ARM64_KERNEL=$LAB_DIR/$KDIR/vmlinuz-${KVERS%% *}"
		echo "export HILAB_LAB_ARM64_RELEASE=${KVERS%% *}"
		echo "export HILAB_LAB_ARM64_KERNEL_PATCHED=$LAB_DIR/$KDIR/vmlinuz-${KVERS##* }"
		echo "export HILAB_LAB_ARM64_RELEASE_PATCHED=${KVERS##* }"
	} | tee "$LAB_DIR/env.arm64"
}

# Destroys and undefines every hilab-* domain; stops nothing else.
lab_down()
{
	local d

	virsh -q -c "$URI" uri >/dev/null 2>&1 || return 0
	for d in $(virsh -q -c "$URI" list --all --name | grep '^hilab-' ||
	    true); do
		virsh -q -c "$URI" destroy "$d" >/dev/null 2>&1 || true
		virsh -q -c "$URI" undefine "$d" >/dev/null 2>&1 || true
		lab_say "removed $d"
	done
}

# Prints what the lab has.
lab_status()
{
	if virsh -q -c "$URI" uri >/dev/null 2>&1; then
		echo "libvirtd: running ($URI)"
		virsh -q -c "$URI" list --all | grep ' hilab-' || true
	else
		echo "libvirtd: not running"
	fi
	echo "kernels: $(ls "$CACHE" 2>/dev/null | grep -v '^\.' | xargs)"
	if [ -f "$LAB_DIR/image.cpio.gz" ]; then
		echo "image: $LAB_DIR/image.cpio.gz" \
		    "($(du -h "$LAB_DIR/image.cpio.gz" | cut -f1))"
	else
		echo "image: none"
	fi
	[ -f "$LAB_DIR/env" ] && cat "$LAB_DIR/env"
	return 0
}

# A command that fails unexpectedly is named with its line; what it
# printed went to stderr above.
trap 'lab_say "error: \"$BASH_COMMAND\" failed (exit status $?, line $LINENO)"' ERR
[ "$(id -u)" = 0 ] || lab_die "run as root"
case ${1:-} in
up) lab_up ;;
down) lab_down ;;
status) lab_status ;;
kernels) lab_kernels && echo "kernels: $KVERS" ;;
arm64) lab_arm64 ;;
*) echo "usage: $0 up|down|status|kernels|arm64" >&2; exit 2 ;;
esac
