#!/bin/bash
# The ssh transport against a real OpenSSH sshd in a network namespace:
# command round trips, channels, uploads (SFTP, and an exec channel where
# sshd has no SFTP; the sha256 checked on the host), timeouts, host key
# checks.
# Usage: ssh_transport.sh ITEST_SSH_BINARY
set -u

. "$(dirname "$0")/lib.sh"

DRIVER=${1:?usage: ssh_transport.sh ITEST_SSH}
lab_init
eval "$(lab_host_up h1)"

# Runs the driver against h1 with extra options before the command.
drv()
{
	"$DRIVER" -n h1 -h "$HOST" -p "$PORT" -l "$LOGIN" -i "$KEY" \
	    -k "$KNOWN_HOSTS" "$@"
}

# Fails unless string $1 contains $2.
expect_in()
{
	case $1 in
	*"$2"*) ;;
	*) lab_fail "expected \"$2\" in: $1" ;;
	esac
}

echo "# host h1 at $HOST in $NETNS"
drv checks || lab_fail "checks"

echo "# per-command overhead"
drv bench 200 || lab_fail "bench"
drv -N bench 200 || lab_fail "bench without nodelay"

echo "# upload"
remote=$AGENT_DIR_REMOTE/a/b/c/blob
head -c 1500000 /dev/urandom >"$LAB_TMP/blob"
drv upload "$LAB_TMP/blob" "$remote" || lab_fail "upload"
cmp "$LAB_TMP/blob" "$remote" || lab_fail "uploaded file differs"
[ "$(stat -c %a "$remote")" = 755 ] || lab_fail "mode $(stat -c %a "$remote")"
head -c 1000 /dev/urandom >"$LAB_TMP/blob"
drv upload "$LAB_TMP/blob" "$remote" >/dev/null || lab_fail "upload over"
cmp "$LAB_TMP/blob" "$remote" || lab_fail "replaced file differs"
[ "$(ls "$(dirname "$remote")")" = blob ] ||
    lab_fail "upload left files: $(ls "$(dirname "$remote")")"
out=$(drv upload "$LAB_TMP/none" "$remote")
[ $? = 3 ] || lab_fail "upload of a missing file succeeded"
expect_in "$out" 'host "h1": upload'
echo "ok: upload, mkdir -p, mode 0755, replace, no temp files left"

# restart_sshd [CMD]: h1's sshd again, with its changed configuration
# (CMD: mounts that only its sessions see).
restart_sshd()
{
	lab_sshd_stop h1
	lab_sshd_start h1 "${1:-}"
}

echo "# a copy that arrives wrong (here: sha256sum says so) is not kept"
cfg=$HOST_DIR/sshd_config
mkdir -p "$HOST_DIR/bin"
printf '#!/bin/sh\necho 0000000000000000000000000000000000000000000000000000000000000000  -\n' \
    >"$HOST_DIR/bin/sha256sum"
chmod 755 "$HOST_DIR/bin/sha256sum"
fake="mount --bind $HOST_DIR/bin/sha256sum /usr/bin/sha256sum"
restart_sshd "$fake"
want="sha256 is 0000000000000000000000000000000000000000000000000000000000000000, not $(sha256sum <"$LAB_TMP/blob" | cut -c1-64)"
remote=$AGENT_DIR_REMOTE/wrong/blob
out=$(drv upload "$LAB_TMP/blob" "$remote" 2>&1)
[ $? = 3 ] || lab_fail "an upload with a wrong sha256 succeeded (sftp)"
expect_in "$out" "$want"
[ -z "$(ls -A "$(dirname "$remote")")" ] ||
    lab_fail "a wrong upload left files: $(ls -A "$(dirname "$remote")")"
sed -i '/^Subsystem/d' "$cfg"
restart_sshd "$fake"
out=$(drv upload "$LAB_TMP/blob" "$remote" 2>&1)
[ $? = 3 ] || lab_fail "an upload with a wrong sha256 succeeded (exec)"
expect_in "$out" "$want"
[ -z "$(ls -A "$(dirname "$remote")")" ] ||
    lab_fail "a wrong upload left files: $(ls -A "$(dirname "$remote")")"
echo "ok: $out"

echo "# upload to an sshd without the SFTP subsystem (as dropbear)"
restart_sshd
remote="$AGENT_DIR_REMOTE/no sftp/it's \$(a) blob"
head -c 1500000 /dev/urandom >"$LAB_TMP/blob"
t0=$(date +%s%N)
out=$(drv -v upload "$LAB_TMP/blob" "$remote" 2>&1) ||
    lab_fail "upload without sftp: $out"
echo "# 1.5 MB over an exec channel: $((($(date +%s%N) - t0) / 1000000)) ms"
expect_in "$out" "uploading over an exec channel"
cmp "$LAB_TMP/blob" "$remote" || lab_fail "exec upload differs"
[ "$(stat -c %a "$remote")" = 755 ] || lab_fail "mode $(stat -c %a "$remote")"
[ "$(ls -A "$(dirname "$remote")")" = "$(basename "$remote")" ] ||
    lab_fail "exec upload left files: $(ls -A "$(dirname "$remote")")"
head -c 1000 /dev/urandom >"$LAB_TMP/blob"
drv upload "$LAB_TMP/blob" "$remote" >/dev/null || lab_fail "exec upload over"
cmp "$LAB_TMP/blob" "$remote" || lab_fail "exec replaced file differs"
lab_sshd_config h1 "$HOST_DIR" "$HOST"
restart_sshd
echo "ok: without sftp: upload over exec, sha256 checked on the host"

echo "# command timeout"
start=$(date +%s%N)
err=$(drv -C 500 exec "sleep 30" 2>&1)
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ $rc = 125 ] || lab_fail "sleep 30 with a 500 ms timeout: rc $rc: $err"
expect_in "$err" 'host "h1": ssh exec "sleep 30": timed out'
# Far below the 30 s the command would take, with room for a loaded CI.
[ $ms -lt 10000 ] || lab_fail "timeout took $ms ms"
echo "ok: $err ($ms ms)"
out=$(drv exec 'exit 7')
[ $? = 7 ] || lab_fail "exit status not relayed"

echo "# commands that must succeed, with a timeout of their own"
out=$(drv run greet 'echo "  hello  "; echo >&2 ignored' 0) ||
    lab_fail "run: $out"
[ "$out" = "[  hello]" ] || lab_fail "run output: $out"
out=$(drv run "make it" 'echo out; printf "first\nlast line\n" >&2; exit 4' 0)
[ $? = 3 ] || lab_fail "a failed command succeeded: $out"
[ "$out" = 'host "h1": make it: first last line (exit 4)' ] ||
    lab_fail "run error: $out"
out=$(drv run quiet 'exit 5' 0)
[ "$out" = 'host "h1": quiet: failed (exit 5)' ] || lab_fail "run: $out"
start=$(date +%s%N)
out=$(drv run slow 'sleep 30' 500)
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
[ $rc = 3 ] && [ $ms -lt 10000 ] || lab_fail "run within 500 ms: $out"
expect_in "$out" 'host "h1": ssh exec "sleep 30": timed out after 500 ms'
out=$(drv -C 500 run long 'sleep 1; echo done' 5000) ||
    lab_fail "a step longer than the command timeout: $out"
[ "$out" = "[done]" ] || lab_fail "run long: $out"
echo "ok: run: output trimmed, stderr and exit in the error, own timeout"

echo "# connect errors"
out=$(drv -p 2222 connect)
[ $? = 3 ] || lab_fail "connect to a closed port succeeded"
expect_in "$out" 'host "h1": ssh connect'
echo "ok: $out"
dead=${HOST%.2}.3
start=$(date +%s%N)
out=$("$DRIVER" -n h1 -h "$dead" -i "$KEY" -k "$KNOWN_HOSTS" -c 1000 connect)
[ $? = 3 ] || lab_fail "connect to an absent host succeeded"
ms=$((($(date +%s%N) - start) / 1000000))
expect_in "$out" 'host "h1": ssh connect: timed out'
# TCP alone would retry for minutes; loaded machines need the room.
[ $ms -lt 10000 ] || lab_fail "connect timeout took $ms ms"
echo "ok: $out ($ms ms)"

echo "# probe for an SSH banner"
out=$(drv probe 2000) || lab_fail "probe of a live sshd: $out"
out=$(drv -p 2222 probe 2000)
[ $? = 1 ] || lab_fail "probe of a closed port: $out"
out=$("$DRIVER" -n h1 -h "$dead" -i "$KEY" -k "$KNOWN_HOSTS" probe 500)
[ $? = 1 ] || lab_fail "probe of an absent host: $out"
ms=${out#silent }
[ "${ms% ms}" -lt 3000 ] || lab_fail "probe of an absent host took $out"
out=$("$DRIVER" -n h1 -h no-such-host.invalid -i "$KEY" -k "$KNOWN_HOSTS" \
    probe 500)
[ $? = 1 ] || lab_fail "probe of an unknown name: $out"
echo "ok: probe: a live sshd answers; closed port, absent host silent"
ssh-keygen -q -t ed25519 -N '' -f "$LAB_TMP/stranger"
out=$(drv -i "$LAB_TMP/stranger" connect)
[ $? = 3 ] || lab_fail "an unauthorized key was accepted"
expect_in "$out" 'host "h1": ssh auth'
echo "ok: $out"
out=$(drv -i "$LAB_TMP/none" connect)
[ $? = 3 ] || lab_fail "a missing identity file was accepted"
expect_in "$out" "cannot read private key"

echo "# unknown host key"
fp=$(ssh-keygen -l -E sha256 -f "$HOST_DIR/host_key.pub" | awk '{print $2}')
: >"$LAB_TMP/kh_empty"
out=$(drv -k "$LAB_TMP/kh_empty" connect)
[ $? = 3 ] || lab_fail "unknown host accepted without trust_on_first_use"
expect_in "$out" "unknown host key for $HOST"
expect_in "$out" "$fp"
[ -s "$LAB_TMP/kh_empty" ] && lab_fail "known_hosts written without trust"
echo "ok: $out"
out=$(drv -T -k "$LAB_TMP/kh_empty" connect) || lab_fail "tofu: $out"
grep -q "$(cut -d' ' -f2 "$HOST_DIR/host_key.pub")" "$LAB_TMP/kh_empty" ||
    lab_fail "tofu did not record the key"
out=$(drv -k "$LAB_TMP/kh_empty" connect) ||
    lab_fail "recorded key not accepted: $out"
out=$(drv -T -k "$LAB_TMP/kh_new/known_hosts" connect)
[ $? = 0 ] && [ -s "$LAB_TMP/kh_new/known_hosts" ] ||
    lab_fail "tofu with no known_hosts file: $out"
echo "ok: trust on first use records the key, then it is checked"

echo "# changed host key"
lab_host_rekey h1
newfp=$(ssh-keygen -l -E sha256 -f "$HOST_DIR/host_key.pub" |
    awk '{print $2}')
[ "$newfp" != "$fp" ] || lab_fail "rekey kept the key"
for opt in "" -T; do
	out=$(drv $opt connect)
	[ $? = 3 ] || lab_fail "changed host key accepted ($opt)"
	expect_in "$out" "host \"h1\": host key for $HOST has changed"
	expect_in "$out" "$newfp"
	expect_in "$out" "$KNOWN_HOSTS"
done
grep -q "$(cut -d' ' -f2 "$HOST_DIR/host_key.pub")" "$KNOWN_HOSTS" &&
    lab_fail "changed key was written to known_hosts"
echo "ok: $out"
echo "ssh_transport: all checks passed"
