#!/bin/bash
# Kernel installs over ssh (machines/kinstall.c) against a real sshd in a
# network namespace whose /boot and /lib/modules are tmpfs of its own (a
# mount namespace), so the test machine's are never touched: files by
# content hash, skipped when there, modules with their stamp, the host's
# own modules and config never replaced, an initrd made on the host, the
# release read from an image's x86 boot header, pruning to keep N, and an
# sshd without the SFTP subsystem (uploads over an exec channel).
# Usage: kinstall.sh ITEST_KINSTALL_BINARY
set -u

LAB_TAP=1
. "$(dirname "$0")/lib.sh"

DRIVER=${1:?usage: kinstall.sh ITEST_KINSTALL}
lab_init
for c in unshare tar gzip sha256sum stat; do
	command -v "$c" >/dev/null ||
	    lab_skip "$c missing (apt-get install util-linux tar gzip coreutils)"
done
eval "$(lab_host_up h1)"
. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
B=/boot/hilab

# Restarts h1's sshd with tmpfs /boot and /lib/modules of its own: the
# host's /usr/lib under an overlay (upper layer on a tmpfs) first, as a
# machine without /lib/modules has no mount point for it.  Its sessions
# find the stub mkinitramfs of $HOST_DIR/bin first: that directory is
# their /usr/local/sbin (the first of hilab's PATH on a host).
sshd_private()
{
	local d=$HOST_DIR

	lab_sshd_stop h1
	mkdir -p "$d/ovl" "$d/bin"
	lab_sshd_start h1 "mount --bind $d/bin /usr/local/sbin &&
	    mount -t tmpfs ovl $d/ovl &&
	    mkdir $d/ovl/up $d/ovl/work &&
	    mount -t overlay lib -o lowerdir=/usr/lib,upperdir=$d/ovl/up,workdir=$d/ovl/work /usr/lib &&
	    mkdir -p /lib/modules && mount -t tmpfs mods /lib/modules &&
	    mount -t tmpfs boot /boot"
}

# A stand-in mkinitramfs on the host: "mkinitramfs -o OUT RELEASE" writes
# a line naming the release into OUT and logs the release.
stub_mkinitramfs()
{
	mkdir -p "$HOST_DIR/bin"
	cat >"$HOST_DIR/bin/mkinitramfs" <<EOF
#!/bin/sh
[ "\$1" = -o ] || exit 2
echo "stub initrd for \$3" >"\$2"
echo "\$3" >>$HOST_DIR/mkinitramfs.log
EOF
	chmod 755 "$HOST_DIR/bin/mkinitramfs"
}

# Runs a command on h1 as an operator would.
on_host()
{
	ssh -q -i "$KEY" -o UserKnownHostsFile="$KNOWN_HOSTS" -o BatchMode=yes \
	    "root@$HOST" "$@"
}

# put KEEP NAME IMAGE INITRD MODULES RELEASE: an install ("-": none) and
# a prune to KEEP; prints the driver's line.  Its stderr goes to put.err.
put()
{
	"$DRIVER" -n h1 -h "$HOST" -i "$KEY" -k "$KNOWN_HOSTS" ${PUT_OPTS:-} \
	    put $B "$@" 2>"$LAB_TMP/put.err"
}

# field LINE KEY: the value of key=value in an output line.
field()
{
	echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"
}

# skip_check DESCRIPTION REASON: a TAP line for a check this machine
# cannot make.
skip_check()
{
	n=$((n + 1))
	echo "ok $n - $1 # SKIP $2"
}

# kernel DIR RELEASE: fake kernel files, modules tree and config in DIR.
kernel()
{
	mkdir -p "$1/mods/lib/modules/$2/kernel"
	head -c 300000 /dev/urandom >"$1/vmlinuz"
	head -c 50000 /dev/urandom >"$1/initrd.img"
	head -c 2000 /dev/urandom >"$1/mods/lib/modules/$2/kernel/a.ko"
	echo "CONFIG_RD_GZIP=y" >"$1/config-$2"
}

# header_image FILE RELEASE: an image whose x86 boot header ("HdrS" at
# 0x202, the version string's offset from 0x200 at 0x20e) names RELEASE.
header_image()
{
	head -c 8192 /dev/urandom >"$1"
	printf 'HdrS' | dd of="$1" bs=1 seek=$((0x202)) conv=notrunc status=none
	printf '\000\001' |
	    dd of="$1" bs=1 seek=$((0x20e)) conv=notrunc status=none
	printf '%s (hilab@test) #1 SMP PREEMPT_DYNAMIC\000' "$2" |
	    dd of="$1" bs=1 seek=$((0x300)) conv=notrunc status=none
}

# sums FILES...: the host's sha256 of each file, one line.
host_sums()
{
	on_host "cd $B && sha256sum $*" | cut -c1-64 | tr '\n' ' '
}

# stamps FILES...: inode and modification time of each file on the host.
host_stamps()
{
	on_host stat -c '%i.%Y.%y' "$@" | tr '\n' ' '
}

stub_mkinitramfs
sshd_private
K=$LAB_TMP/k

# --- A first install: everything sent, by content hash. ---
kernel "$K/a" 6.1.0-hilab-a
out=$(put 9 a "$K/a/vmlinuz" "$K/a/initrd.img" "$K/a/mods" 6.1.0-hilab-a)
check "a first install succeeds" test $? = 0
echo "# $out"
ida=$(field "$out" id)
check "its id is 16 hex digits" test "$(echo "$ida" | grep -c '^[0-9a-f]\{16\}$')" = 1
check "it was sent (fresh)" test "$(field "$out" fresh)" = 1
check "image and initrd arrived whole" test "$(host_sums "$ida/vmlinuz" "$ida/initrd.img")" = "$(cd "$K/a" && sha256sum vmlinuz initrd.img | cut -c1-64 | tr '\n' ' ')"
check "the initrd is named" test "$(field "$out" initrd)" = "$B/$ida/initrd.img"
check "release and name are written, .complete marks it" test "$(on_host "cat $B/$ida/release $B/$ida/name; test -f $B/$ida/.complete && echo complete" | tr '\n' ' ')" = "6.1.0-hilab-a a complete "
check "its modules are under /lib/modules/<release>" on_host cmp -s /lib/modules/6.1.0-hilab-a/kernel/a.ko - <"$K/a/mods/lib/modules/6.1.0-hilab-a/kernel/a.ko"
check "with the stamp of the install that put them" test "$(on_host cat /lib/modules/6.1.0-hilab-a/.hilab)" = "$ida"
if on_host command -v depmod >/dev/null; then
	check "depmod ran for them" on_host test -f /lib/modules/6.1.0-hilab-a/modules.dep
else
	skip_check "depmod ran for them" "no depmod on this machine"
fi
check "its config is /boot/config-<release>" test "$(on_host readlink /boot/config-6.1.0-hilab-a)" = "$B/$ida/config"
check "no tarball and no temporary files are left" test "$(on_host "ls -A $B/$ida; ls -A /lib/modules" | tr '\n' ' ')" = ".complete config initrd.img name release vmlinuz 6.1.0-hilab-a "
check "no initrd was made: one came" test ! -e "$HOST_DIR/mkinitramfs.log"

# --- The same kernel again: nothing sent. ---
before=$(host_stamps $B/$ida/vmlinuz $B/$ida/initrd.img /lib/modules/6.1.0-hilab-a/kernel/a.ko)
out=$(put 9 a "$K/a/vmlinuz" "$K/a/initrd.img" "$K/a/mods" 6.1.0-hilab-a)
echo "# again: $out"
check "the same kernel again: the same id, not fresh" test "$(field "$out" id)/$(field "$out" fresh)" = "$ida/0"
check "and nothing was sent again" test "$(host_stamps $B/$ida/vmlinuz $B/$ida/initrd.img /lib/modules/6.1.0-hilab-a/kernel/a.ko)" = "$before"
touch "$K/a/mods/lib/modules/6.1.0-hilab-a/kernel/a.ko"
out=$(put 9 a "$K/a/vmlinuz" "$K/a/initrd.img" "$K/a/mods" 6.1.0-hilab-a)
ida2=$(field "$out" id)
check "a touched module makes another install" test "$(field "$out" fresh)" = 1 -a "$ida2" != "$ida"
check "its modules replaced those of the first (stamp)" test "$(on_host cat /lib/modules/6.1.0-hilab-a/.hilab)" = "$ida2"

# --- The host's own kernel: its modules and config are never replaced. ---
on_host 'mkdir -p /lib/modules/6.1.0-own/kernel && echo own >/lib/modules/6.1.0-own/kernel/own.ko && echo own >/boot/config-6.1.0-own && echo own initrd >/boot/initrd.img-6.1.0-own'
kernel "$K/own" 6.1.0-own
out=$(put 9 own "$K/own/vmlinuz" - "$K/own/mods" 6.1.0-own)
check "a kernel of the host's own release installs" test $? = 0
echo "# own: $out"
ido=$(field "$out" id)
check "the host's own modules stay as they were" test "$(on_host cat /lib/modules/6.1.0-own/kernel/own.ko)/$(on_host ls /lib/modules/6.1.0-own/kernel)" = "own/own.ko"
check "and get no stamp" on_host test ! -e /lib/modules/6.1.0-own/.hilab
check "the host's own config stays" test "$(on_host cat /boot/config-6.1.0-own)" = own
check "without an initrd, the host's own for the release is taken" test "$(on_host cat $B/$ido/initrd.img)" = "own initrd"

# --- Modules as a gzip tarball, no initrd: one is made on the host. ---
kernel "$K/d" 6.1.0-hilab-d
tar -C "$K/d/mods" -czf "$K/d/mods.tar.gz" lib/modules/6.1.0-hilab-d
out=$(put 9 d "$K/d/vmlinuz" - "$K/d/mods.tar.gz" 6.1.0-hilab-d)
check "a kernel with a modules tarball installs" test $? = 0
echo "# d: $out"
idd=$(field "$out" id)
check "its modules are unpacked and stamped" test "$(on_host cat /lib/modules/6.1.0-hilab-d/kernel/a.ko | sha256sum | cut -c1-64)/$(on_host cat /lib/modules/6.1.0-hilab-d/.hilab)" = "$(sha256sum <"$K/d/mods/lib/modules/6.1.0-hilab-d/kernel/a.ko" | cut -c1-64)/$idd"
check "mkinitramfs made its initrd" test "$(field "$out" initrd)/$(on_host cat $B/$idd/initrd.img)" = "$B/$idd/initrd.img/stub initrd for 6.1.0-hilab-d"

# --- The release from the image's boot header. ---
header_image "$K/hdr" 6.1.0-hilab-hdr
out=$(put 9 hdr "$K/hdr" - - -)
check "without a release, the image's boot header gives it" test "$(field "$out" release)" = 6.1.0-hilab-hdr
echo "# hdr: $out"
idh=$(field "$out" id)
check "without modules or initrd, it boots without one" test "$(field "$out" initrd)" = -
check "its release file says so" test "$(on_host cat $B/$idh/release)" = 6.1.0-hilab-hdr
cache=${HILAB_KERNEL_CACHE:-/var/cache/hilab/kernels}
real=$(ls "$cache"/*/boot/vmlinuz-* 2>/dev/null | head -1)
if [ -n "$real" ]; then
	out=$(put 9 real "$real" - - -)
	echo "# real: $out"
	check "a Debian kernel's image installs with the release of its name" test "$(field "$out" release)" = "${real##*/vmlinuz-}"
	check "and arrives whole" test "$(host_sums "$(field "$out" id)/vmlinuz")" = "$(sha256sum <"$real" | cut -c1-64) "
	nreal=1
else
	skip_check "a Debian kernel's image installs with the release of its name" "no kernel in $cache"
	skip_check "and arrives whole" "no kernel in $cache"
	nreal=0
fi

# --- Refusals, each naming the machine, the kernel and why. ---
head -c 1000 /dev/urandom >"$K/junk"
out=$(put 9 junk "$K/junk" - - -)
check "an image of unknown release is refused with the reason" test $? = 3 -a -n "$(echo "$out" | grep 'machine "h1": kernel "junk": install: kernel image ".*junk": no version string (an x86 boot header or an arm64 Image.s banner) (give the kernel.s release)')"
echo "# $out"
out=$(put 9 bad "$K/a/vmlinuz" - - '../../etc')
check "a release that is no directory name is refused" test $? = 3 -a -n "$(echo "$out" | grep 'release "../../etc" cannot name a directory')"
out=$(put 9 gone "$K/none" - - 6.1.0-x)
check "a missing image is refused with its name" test $? = 3 -a -n "$(echo "$out" | grep "kernel \"gone\": install: \"$K/none\": No such file")"

# --- Pruning: keep 2, the newest by use. ---
on_host "mkdir -p $B/0123456789abcdef $B/not-an-install && touch $B/not-an-install/x"
sleep 1.1
put 9 own "$K/own/vmlinuz" - "$K/own/mods" 6.1.0-own >/dev/null
kernel "$K/b" 6.1.0-hilab-b
sleep 1.1
out=$(put 2 b "$K/b/vmlinuz" "$K/b/initrd.img" "$K/b/mods" 6.1.0-hilab-b)
echo "# b: $out"
idb=$(field "$out" id)
check "keep 2: the others are pruned" test "$(field "$out" pruned)" = $((4 + nreal))
check "the two used last stay" test "$(on_host "cd $B && ls -d [0-9a-f]*" | tr '\n' ' ')" = "$(printf '%s\n' "$ido" "$idb" | sort | tr '\n' ' ')"
check "an install left half sent went, another directory stays" test "$(on_host ls $B/not-an-install)" = x
check "the pruned ones' modules went with them" on_host test ! -e /lib/modules/6.1.0-hilab-a -a ! -e /lib/modules/6.1.0-hilab-d
check "and their config links" on_host test ! -e /boot/config-6.1.0-hilab-a -a ! -L /boot/config-6.1.0-hilab-a
check "the host's own modules and config survive the pruning" test "$(on_host cat /lib/modules/6.1.0-own/kernel/own.ko /boot/config-6.1.0-own | tr '\n' ' ')" = "own own "
check "the kept ones' modules stay" test "$(on_host cat /lib/modules/6.1.0-hilab-b/.hilab)" = "$idb"

# --- No SFTP subsystem (dropbear): the same over an exec channel. ---
sed -i '/^Subsystem/d' "$HOST_DIR/sshd_config"
sshd_private
kernel "$K/c" 6.1.0-hilab-c
out=$(PUT_OPTS=-v put 3 c "$K/c/vmlinuz" "$K/c/initrd.img" "$K/c/mods" 6.1.0-hilab-c)
check "without sftp: the install succeeds" test $? = 0
echo "# c: $out"
idc=$(field "$out" id)
check "without sftp: it went over an exec channel" grep -q "uploading over an exec channel" "$LAB_TMP/put.err"
check "without sftp: image, initrd and config arrived whole" test "$(host_sums "$idc/vmlinuz" "$idc/initrd.img" "$idc/config")" = "$(cd "$K/c" && sha256sum vmlinuz initrd.img config-6.1.0-hilab-c | cut -c1-64 | tr '\n' ' ')"
check "without sftp: modules arrived, stamped" test "$(on_host cat /lib/modules/6.1.0-hilab-c/kernel/a.ko | sha256sum | cut -c1-64)/$(on_host cat /lib/modules/6.1.0-hilab-c/.hilab)" = "$(sha256sum <"$K/c/mods/lib/modules/6.1.0-hilab-c/kernel/a.ko" | cut -c1-64)/$idc"
check "without sftp: no temporary files are left" test "$(on_host ls -A $B/$idc | tr '\n' ' ')" = ".complete config initrd.img name release vmlinuz "
out=$(put 3 c "$K/c/vmlinuz" "$K/c/initrd.img" "$K/c/mods" 6.1.0-hilab-c)
check "without sftp: again, nothing sent" test "$(field "$out" id)/$(field "$out" fresh)" = "$idc/0"
echo "1..$n"
exit $((failed > 0))
