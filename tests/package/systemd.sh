#!/usr/bin/env bash
# hilabd.service under a real systemd: the .deb built from this tree
# (scripts/deb.sh) and installed with apt in a Debian 12 root that boots
# systemd (mmdebstrap), the root booted with systemd-nspawn.  In there a
# unit ordered after hilabd.service writes what it sees to /out (the
# service's state and status, who runs it, the modes of its directories, a
# member of the group hilab using the command line, a reload that adds a
# machine which that member then sets to maintenance, systemd-analyze
# security, the stop, the journal) and powers the container off; the
# checks here read those files.  About a minute.  (TAP)
set -u
S=$HILAB_SRCDIR
. "$S/tests/lib/skip.sh"
[ "$(id -u)" = 0 ] || skip_missing_tap "needs root (mmdebstrap, systemd-nspawn)"
for c in systemd-nspawn mmdebstrap dpkg-buildpackage lintian; do
	command -v $c >/dev/null || skip_missing_tap "$c missing (scripts/packages.txt)"
done
T=$(mktemp -d /var/tmp/hilab-systemd.XXXXXX)
trap 'rm -rf --one-file-system "$T"' EXIT
. "$S/tests/package/lib.sh"
# has FILE PATTERN: FILE (written in the container) has a line matching.
has() {
	grep -E -- "$2" "$T/out/$1" || { cat "$T/out/$1"; false; }
}

echo "1..13"
"$S/scripts/deb.sh" "$T/deb" >"$T/deb.log" 2>&1
check "scripts/deb.sh builds the .deb" bash -c "ls $T/deb/hilab_*_amd64.deb || { tail -n 20 $T/deb.log; false; }"
deb=$(ls "$T"/deb/hilab_*_amd64.deb 2>/dev/null | head -1)

# What the container runs once hilabd.service has started (or failed).
mkdir -p "$T/out"
cat >"$T/hilab-check" <<'EOF'
#!/bin/sh
cd /out
systemctl show -p ActiveState -p StatusText -p User -p NRestarts hilabd >started
echo "process user $(ps -o user= -p "$(systemctl show -p MainPID --value hilabd)")" >>started
stat -c '%n %a %U %G' /etc/hilab /var/lib/hilab /var/lib/hilab/hilab.db \
    /run/hilab/control.sock /var/cache/hilab >modes 2>&1
su alice -c 'hilab list; echo "list exit $?"; hilab machines list; echo "machines exit $?"' >alice 2>&1
cat >/etc/hilab/machines/lab1.yaml <<'YAML'
name: lab1
kind: ssh
ssh: {host: 127.0.0.1, identity: /etc/hilab/lab1.key, known_hosts: /etc/hilab/lab1.known_hosts}
YAML
systemctl reload hilabd
echo "reload exit $?" >reload
for i in $(seq 100); do
	systemctl show -p StatusText --value hilabd | grep -q '^1 machines' && break
	sleep 0.1
done
systemctl show -p ActiveState -p StatusText hilabd >>reload
su alice -c 'hilab machines set lab1 maintenance; echo "set exit $?"; hilab machines list' >alice-set 2>&1
systemd-analyze security --no-pager hilabd >security 2>&1
systemctl stop hilabd
systemctl show -p ActiveState -p Result -p ExecMainStatus hilabd >stopped
journalctl -b -u hilabd --no-pager -o cat >journal
EOF
chmod 755 "$T/hilab-check"
cat >"$T/hilab-check.service" <<'EOF'
[Unit]
Description=the package test's checks
After=hilabd.service

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/hilab-check
# Whatever the checks did, the container ends.
ExecStopPost=/bin/systemctl poweroff

[Install]
WantedBy=multi-user.target
EOF
root=$T/root
mmdebstrap --quiet --variant=apt --include=systemd-sysv,dbus \
    --customize-hook="copy-in $deb /tmp" \
    --customize-hook='chroot "$1" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q /tmp/'"${deb##*/}" \
    --customize-hook="copy-in $T/hilab-check /usr/local/sbin" \
    --customize-hook="copy-in $T/hilab-check.service /etc/systemd/system" \
    --customize-hook='chroot "$1" systemctl enable hilab-check.service' \
    --customize-hook='chroot "$1" adduser --quiet --disabled-password --gecos "" alice' \
    --customize-hook='chroot "$1" adduser --quiet alice hilab' \
    bookworm "$root" </etc/apt/sources.list.d/debian.sources >"$T/mmdebstrap.log" 2>&1
check "apt installs it in a Debian 12 root with systemd" bash -c "[ -x $root/usr/sbin/hilabd ] || { tail -n 20 $T/mmdebstrap.log; false; }"
check "the package enabled hilabd.service" test -L "$root/etc/systemd/system/multi-user.target.wants/hilabd.service"

# Booted without the host's systemd (none may run here): no machined, no
# scope of its own; a network of its own (its loopback only), so that the
# machine the reload adds reaches nothing outside.  The container powers
# itself off; 300 s at most.
timeout 300 systemd-nspawn --quiet --boot --register=no --keep-unit --private-network \
    --directory="$root" --bind="$T/out:/out" >"$T/boot.log" 2>&1
check "the container booted, ran the checks and powered off" bash -c "[ -s $T/out/journal ] || { tail -n 30 $T/boot.log; false; }"
check "hilabd.service is active once hilabd said READY=1, with its status" \
    has started '^StatusText=0 machines, database /var/lib/hilab/hilab.db$'
check "... started once (no restart), as the user hilab" bash -c \
    "grep -qx ActiveState=active $T/out/started && grep -qx NRestarts=0 $T/out/started &&
     grep -qx 'process user hilab' $T/out/started || { cat $T/out/started; false; }"
check "the database and socket are the group's, /etc/hilab as packaged" bash -c \
    "grep -qx '/var/lib/hilab 770 hilab hilab' $T/out/modes && grep -qx '/var/lib/hilab/hilab.db 660 hilab hilab' $T/out/modes &&
     grep -qx '/run/hilab/control.sock 660 hilab hilab' $T/out/modes && grep -qx '/etc/hilab 755 root root' $T/out/modes || { cat $T/out/modes; false; }"
check "a member of the group hilab runs hilab list and machines list" bash -c \
    "grep -qx 'list exit 0' $T/out/alice && grep -qx 'machines exit 0' $T/out/alice || { cat $T/out/alice; false; }"
check "systemctl reload: hilabd reads the new machine file, READY=1 again" bash -c \
    "grep -qx 'reload exit 0' $T/out/reload && grep -q '^StatusText=1 machines' $T/out/reload &&
     grep -qx ActiveState=active $T/out/reload || { cat $T/out/reload; false; }"
check "... and writes: it sets the new machine to maintenance" bash -c \
    "grep -qx 'set exit 0' $T/out/alice-set && grep -q 'lab1.*maintenance' $T/out/alice-set || { cat $T/out/alice-set; false; }"
exposure=$(sed -n 's/.*Overall exposure level for hilabd.service: \([0-9.]*\).*/\1/p' "$T/out/security")
echo "# systemd-analyze security: exposure $exposure"
check "systemd-analyze security rates the sandbox below 5 (\"OK\")" \
    awk -v e="${exposure:-10}" 'BEGIN { exit !(e < 5) }'
check "systemctl stop: TERM, hilabd exits 0" bash -c \
    "grep -qx ActiveState=inactive $T/out/stopped && grep -qx Result=success $T/out/stopped || { cat $T/out/stopped; false; }"
check "the journal has hilabd's lines and no warning of systemd's about the unit" bash -c \
    "grep -q 'hilabd: ready: 0 machines' $T/out/journal &&
     ! grep -v '^[0-9]\{4\}-' $T/out/journal | grep -E 'mode is different|Failed|failed'"
exit $((failed > 0))
