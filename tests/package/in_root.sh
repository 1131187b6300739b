#!/usr/bin/env bash
# Run as root on a fresh Debian 12 machine in a clone of hilab (by deb.sh,
# through fresh-check): the packages, the .deb built (scripts/deb.sh) and
# installed with apt, then what a lab admin does with it.  (TAP)
set -u
T=$(mktemp -d)
. "$(dirname "$0")/lib.sh"
# secs COMMAND...: runs it, printing how long it took.
secs() {
	local t0=$(date +%s) rc

	"$@"
	rc=$?
	echo "# $(($(date +%s) - t0)) s: $*" >&2
	return $rc
}

echo "1..15"
check "scripts/install-deps.sh" secs scripts/install-deps.sh
check "scripts/deb.sh builds the .deb, lintian without errors or warnings" secs scripts/deb.sh "$T/deb"
deb=$(ls "$T"/deb/hilab_*_amd64.deb 2>/dev/null | head -1)
check "apt installs it" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$deb"
check "hilab --help" bash -c "hilab --help | grep -q '^commands:'"
check "no source-tree path compiled in: the catalog and agents are the installed ones" bash -c \
    "strings -a /usr/bin/hilab /usr/sbin/hilabd | grep -E '/(benchmarks|agents)\$' | sort -u | tee /dev/stderr |
     diff - <(echo /usr/share/hilab/benchmarks)"
check "hilabd -n reads the empty inventory and the installed catalog" \
    bash -c "/usr/sbin/hilabd -n 2>&1 | tee /dev/stderr | grep -q 'benchmarks'"
check "man hilab, hilabd, hilab-agent, hilab-machines, hilab-jobs" bash -c \
    'for p in hilab hilabd hilab-agent hilab-machines hilab-jobs; do man -w $p || exit 1; done; man hilab | grep -q SYNOPSIS'
check "bash completion is loaded on demand and completes" bash -c \
    '. /usr/share/bash-completion/bash_completion; _completion_loader hilab; complete -p hilab &&
     COMP_WORDS=(hilab sw); COMP_CWORD=1; _hilab; [ "${COMPREPLY[*]}" = sweep ]'
check "the user hilab exists, in group hilab" bash -c "id hilab | grep -q '(hilab)'"
check "hilabd.service is enabled" test -L /etc/systemd/system/multi-user.target.wants/hilabd.service
check "systemd-analyze verify hilabd.service" bash -c \
    '! systemd-analyze verify /usr/lib/systemd/system/hilabd.service 2>&1 | grep .'
check "hilabd runs as hilab with the unit's directories" bash -c \
    'install -d -o hilab -g hilab /var/lib/hilab /run/hilab &&
     setpriv --reuid hilab --regid hilab --init-groups /usr/sbin/hilabd -n'
# As the unit runs it (User=hilab, UMask=0007, its directories), with a
# member of the group hilab using the command line.
check "a member of the group hilab uses the database and socket of hilabd running as hilab" bash -c '
    adduser --quiet --disabled-password --gecos "" alice && adduser --quiet alice hilab &&
    install -d -o hilab -g hilab /var/lib/hilab /run/hilab && chmod 0770 /var/lib/hilab || exit 1
    setpriv --reuid hilab --regid hilab --init-groups bash -c "umask 0007; exec /usr/sbin/hilabd" &
    pid=$!
    for i in $(seq 100); do [ -S /run/hilab/control.sock ] && break; sleep 0.1; done
    su alice -c "hilab list && hilab machines list" && ls -l /var/lib/hilab /run/hilab &&
    kill -TERM $pid && wait $pid'
check "the demo lab runs from the installed files" secs bash -c \
    'scripts/demo.sh --installed >"'"$T"'/demo.txt" 2>&1; rc=$?; tail -n 30 "'"$T"'/demo.txt"; exit $rc'
check "... and ends in both comparison tables" bash -c \
    "grep -q '== hackbench on the 32-vCPU VM' '$T/demo.txt' && grep -q '== hackbench on the namespace host' '$T/demo.txt'"
exit $((failed > 0))
