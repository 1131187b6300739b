#!/usr/bin/env bash
# A host whose login shell's start-up files print, dawdle and change what
# commands see (sshd runs every command through that shell, and bash reads
# ~/.bashrc for ssh commands): hilab's commands, its agent and the
# benchmark run as on a bare host.  Root's home, bind-mounted for the
# host's sshd sessions only, has a .bashrc that prints on stdout and
# stderr, sleeps, puts a uname that lies first in PATH, sets a locale the
# host lacks, umask 000, cd /tmp and exports a variable; the sshd runs an
# external sftp-server (through the shell too) and no longer keeps bash
# from reading .bashrc as the other lab hosts do.  A command that .bashrc
# stalls past the command timeout once is tried again.  A .bashrc that
# exits before the command is an error naming the host, not an empty
# answer.
# Usage: startup_files.sh ITEST_SSH
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
DRIVER=${1:?usage: startup_files.sh ITEST_SSH}
lab_init
eval "$(lab_host_up a A_)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
export HILAB_DB=$LAB_TMP/hilab.db HILAB_SOCKET=$LAB_TMP/control.sock
export HILAB_MACHINES=$LAB_TMP/machines
HILABD_LOG=$LAB_TMP/hilabd.log
mkdir -p "$HILAB_MACHINES"
machine_yaml a A_
sed -i 's|^ssh:$|ssh:\n  command_timeout: 2s|' "$HILAB_MACHINES/a.yaml"
trap daemon_cleanup EXIT
T=$LAB_TMP

home=$T/home
mkdir -p "$home/bin"
printf '#!/bin/sh\necho not-an-arch\n' >"$home/bin/uname"
chmod 755 "$home/bin/uname"
cat >"$home/.bashrc" <<RC
echo "Welcome to the lab, \$USER"
echo "Last backup: never" >&2
sleep 0.3
export PATH=$home/bin:\$PATH NOISE=from-bashrc LC_ALL=xx_XX.UTF-8
umask 000
cd /tmp
RC
cfg=$A_HOST_DIR/sshd_config
sed -i -e '/^SetEnv /d' \
    -e 's|^Subsystem .*|Subsystem sftp /usr/lib/openssh/sftp-server|' "$cfg"
lab_sshd_stop a
lab_sshd_start a "mount --bind $home /root"

drv()
{
	"$DRIVER" -n a -h "$A_HOST" -p "$A_PORT" -l "$A_LOGIN" -i "$A_KEY" \
	    -k "$A_KNOWN_HOSTS" "$@"
}

echo "1..9"
# shellcheck disable=SC2016 # expanded on the host
probe='uname -m; pwd; umask; echo "${NOISE-unset} ${LC_ALL-}"; echo err >&2'
drv exec "$probe" >"$T/out" 2>"$T/err"
check "a command's stdout is its own, in a clean environment" \
    test "$(cat "$T/out")" = "$(printf '%s\n/root\n0022\nunset C' "$(uname -m)")"
check "its stderr is its own" test "$(cat "$T/err")" = err

cat >"$T/env.yaml" <<'YAML'
name: env
machines: [a]
benchmarks:
  - name: env
    command: [sh, -c, 'b=0; [ -z "$NOISE" ] || b=$((b+1)); [ "$(umask)" = 0022 ] || b=$((b+2)); [ "$(uname -m)" = "$(/bin/uname -m)" ] || b=$((b+4)); echo bad=$b']
    parser: keyvalue
    metrics: [{name: bad, unit: count, direction: lower}]
    iterations: 3
    warmups: 0
YAML
daemon_start || exit 1
SUBMIT_ERR=$T/submit.err
id=$(submit "$T/env.yaml")
"$hilab" wait --timeout 120 "$id" >"$T/wait.out" 2>&1
check "a job on the host ends done" grep -q "^job $id done" "$T/wait.out"
check "its benchmark saw none of .bashrc (3 samples of 0)" \
    test "$(sql "SELECT COUNT(*) || ':' || SUM(value) FROM samples")" = "3:0.0"
check "the agent was uploaded over the shell's sftp-server or cat" \
    grep -q 'host "a": uploaded' "$HILABD_LOG"
daemon_stop TERM

# The next command (the new hilabd's first: uname -m) stalls for 5 s.
sed -i "1i if [ -e $home/stall ]; then rm -f $home/stall; sleep 5; fi" \
    "$home/.bashrc"
touch "$home/stall"
daemon_start || exit 1
id=$(submit "$T/env.yaml")
"$hilab" wait --timeout 120 "$id" >"$T/wait.out" 2>&1
check "a command stalled past the 2 s command timeout, yet the job is done" \
    grep -q "^job $id done" "$T/wait.out"
check "the stall happened" test ! -e "$home/stall"
daemon_stop TERM

echo 'exit 0' >"$home/.bashrc"
rc 125 drv exec true
check "a .bashrc that exits first is an error (exit 125)" test $? = 0
check "naming the host and what happened" grep -q \
    'host "a": ssh exec "true": the login shell ended before the command started (exit 0)' \
    "$T/err"
daemon_log_on_failure
exit $((failed > 0))
