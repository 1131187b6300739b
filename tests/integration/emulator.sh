#!/usr/bin/env bash
# The lab's emulator.  scripts/qemu-tcg-single hands qemu every argument as
# libvirt gave it, but "-accel tcg", which becomes "-accel tcg,thread=single";
# "hilab machines check" names a VM whose emulator cannot be run here.  Each
# in a private mount namespace (unshare -m): a stand-in qemu that prints its
# arguments bind-mounted over /usr/bin/qemu-system-x86_64, and a tmpfs over
# /usr/local/libexec with or without the wrapper.  Root only.
set -u
. "$HILAB_SRCDIR/tests/lib/skip.sh"
[ "$(id -u)" = 0 ] || skip_missing "needs root (mount namespaces)"
qemu=/usr/bin/qemu-system-x86_64
[ -e "$qemu" ] || skip_missing "$qemu missing (apt-get install qemu-system-x86)"
. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
T=$(mktemp -d /tmp/hilab-emu.XXXXXX)
trap 'rm -rf "$T"' EXIT
wrapper=$HILAB_SRCDIR/scripts/qemu-tcg-single
libexec=/usr/local/libexec

# hidden WRAPPER CMD...: CMD with $libexec empty, or holding WRAPPER where
# scripts/lab.sh installs it.
hidden() {
	mkdir -p "$libexec"
	unshare -m sh -c 'mount -t tmpfs tmpfs "$1" &&
	    mkdir "$1/hilab" && { [ -z "$2" ] ||
	    install -m 755 "$2" "$1/hilab/qemu-tcg-single"; } &&
	    shift 2 && exec "$@"' sh "$libexec" "$@"
}

echo "1..4"
printf '#!/bin/sh\nfor a do printf "[%%s]\\n" "$a"; done\n' >"$T/args"
chmod 755 "$T/args"
got=$(unshare -m sh -c 'mount --bind "$1" "$2" && shift 2 && exec "$@"' \
    sh "$T/args" "$qemu" "$wrapper" -name guest=hilab-vm32,debug-threads=on \
    -accel tcg -append 'console=ttyS0 a  "b" $(x) `y` ;' -accel kvm \
    -device tcg -accel)
want='[-name]
[guest=hilab-vm32,debug-threads=on]
[-accel]
[tcg,thread=single]
[-append]
[console=ttyS0 a  "b" $(x) `y` ;]
[-accel]
[kvm]
[-device]
[tcg]
[-accel]'
check "the wrapper turns -accel tcg into tcg,thread=single and nothing else" \
    test "$got" = "$want"

mkdir "$T/machines"
cat >"$T/machines/vm.yaml" <<YAML
name: vm
kind: libvirt
ssh: {host: 127.0.0.11, port: 2222, identity: k, known_hosts: kh}
libvirt: {vcpus: 2, memory: 1G}
YAML
out=$(hidden "" "$hilab" machines check "$T/machines" 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
check "machines check fails without the default emulator" test "$rc" = 2
check "naming the file, the line and what installs it" grep -qF \
    "$T/machines/vm.yaml:1: machine \"vm\": emulator $libexec/hilab/qemu-tcg-single cannot be run: No such file or directory (scripts/lab.sh installs" <<<"$out"
out=$(hidden "$wrapper" "$hilab" machines check "$T/machines" 2>&1)
rc=$?
check "with it installed, machines check prints it and boot_tries 3" \
    test "$rc/$(grep -cE "^    (emulator: $libexec/hilab/qemu-tcg-single|boot_tries: 3)$" <<<"$out")" = 0/2
exit $((failed > 0))
