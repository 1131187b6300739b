#!/bin/bash
# The ssh transport against a real OpenSSH sshd in a network namespace:
# command round trips, channels, SFTP upload, timeouts, host key checks.
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
