#!/usr/bin/env bash
# The peer, side by side (bench/run's --lava part).  LAVA's dispatcher
# (Debian's lava-dispatcher, lava-run without a server) and hilab each
# boot the lab's base kernel and image on the lab's 4-vCPU VM shape and
# run hackbench -g 2 -l 100 once; plain is qemu with LAVA's device's
# command line, reached by OpenSSH.  In turn, ROUNDS times each: the whole
# job.  Then ROUNDS jobs of LAVA and of hilab that panic the kernel (sysrq
# c): from the panic line to the run failed, and to the job over.  Rows
# on stdout.  Root; brings the lab up.
#
#	bench/lava.sh ROUNDS BUILD_DIR
#
# LAVA runs in a Debian root of its own, HILAB_LAVA_ROOT (default
# /var/cache/hilab/lava), made the first time with mmdebstrap from this
# machine's apt sources (~1.1 GB); each job in a mount namespace of its
# own, so nothing stays mounted.  bench/lava/ holds LAVA's device
# configuration and job definitions; the image gets a root shell on its
# serial console for LAVA from an archive appended to it here (LAVA's
# interactive tests then need nothing else in the image).
set -u
rounds=${1:?rounds}
export HILAB_BUILDDIR=${2:?build dir}
export HILAB_SRCDIR=${HILAB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
ROOT=${HILAB_LAVA_ROOT:-/var/cache/hilab/lava}
LAVA=$HILAB_SRCDIR/bench/lava
. "$HILAB_SRCDIR/bench/vmlib.sh"
PLAIN_HOST=127.0.0.98

# lava_root: the LAVA root, made unless it has lava-run and qemu.
lava_root() {
	local sources=/etc/apt/sources.list

	[ -x "$ROOT/usr/bin/lava-run" ] && [ -x "$ROOT/usr/bin/qemu-system-x86_64" ] &&
	    return 0
	[ -f /etc/apt/sources.list.d/debian.sources ] &&
	    sources=/etc/apt/sources.list.d/debian.sources
	echo "lava: making $ROOT (mmdebstrap)" >&2
	rm -rf "$ROOT"
	mkdir -p "$(dirname "$ROOT")"
	mmdebstrap --quiet --variant=apt --include=lava-dispatcher,qemu-system-x86 \
	    bookworm "$ROOT" - <"$sources" >&2
}

# lava_files: the kernel, the image with a shell on ttyS0 appended, the
# device configuration and the jobs in $ROOT/lava.
lava_files() {
	local x=$T/console-shell

	rm -rf "$ROOT/lava" "$x"
	mkdir -p "$ROOT/lava" "$x/etc" "$x/usr/bin"
	(cd "$x" && gzip -dc "$HILAB_LAB_INITRD" | cpio -id --quiet etc/inittab) || return 1
	echo 'ttyS0::respawn:/usr/bin/lava-console' >>"$x/etc/inittab"
	printf '%s\n' '#!/bin/sh' \
	    '# A root shell on the serial console, with the prompt LAVA waits for.' \
	    'export PS1="lava# " PATH=/usr/sbin:/usr/bin:/sbin:/bin' 'cd /' 'exec /bin/sh' \
	    >"$x/usr/bin/lava-console"
	chmod 755 "$x/usr/bin/lava-console"
	{
		cat "$HILAB_LAB_INITRD"
		(cd "$x" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -6)
	} >"$ROOT/lava/image.cpio.gz"
	cp "$HILAB_LAB_KERNEL_BASE" "$ROOT/lava/vmlinuz"
	cp "$LAVA"/*.yaml "$ROOT/lava/"
}

# lava JOB: runs bench/lava/JOB with lava-run in the LAVA root, its log
# in $T/lava.log; prints the ms it took; fails as lava-run does.
lava() {
	local t0 rc=0

	t0=$(now_ms)
	unshare -m sh -c 'r=$1; shift
	    mount --rbind /dev "$r/dev" && mount -t proc proc "$r/proc" &&
	    mount -t sysfs sysfs "$r/sys" && mount -t tmpfs tmpfs "$r/tmp" &&
	    mount -t tmpfs tmpfs "$r/run" && exec chroot "$r" "$@"' sh "$ROOT" \
	    lava-run --device /lava/device.yaml --job-id 1 --output-dir /lava/out \
	    "/lava/$1" >"$T/lava.log" 2>&1 || rc=$?
	echo $(($(now_ms) - t0))
	return $rc
}

# lava_panicked: LAVA's panic job; prints the ms from the panic line to
# the failure LAVA matched, then to lava-run's exit.  The line's time: as
# for hilab (printk_at), from the time LAVA logged the last line with a
# printk stamp; LAVA's log of the console's lines goes to $T/lava.console.
lava_panicked() {
	local end times at

	lava panic.yaml >/dev/null
	end=$(now_ms)
	times=$(python3 - "$T/lava.log" "$T/lava.console" <<'PY'
import datetime, json, re, sys

def wall(dt):
    t = datetime.datetime.fromisoformat(dt)
    return t.replace(tzinfo=datetime.timezone.utc).timestamp()

last = failed = None
stamp = ""  # a line logged in two parts, cut where LAVA's match begins
with open(sys.argv[2], "w") as console:
    for line in open(sys.argv[1]):
        try:
            e = json.loads(line)
        except ValueError:
            continue
        msg = e.get("msg")
        if not isinstance(msg, str):
            continue
        if e["lvl"] == "target":
            if re.fullmatch(r"\[ *[0-9]+\.[0-9]+\] ?", msg):
                stamp = msg
                continue
            msg, stamp = stamp + msg, ""
            console.write(msg + "\n")
            if re.search(r"\[ *[0-9]+\.[0-9]+\]", msg):
                last = wall(e["dt"])
        if failed is None and msg.startswith("Matched a failure"):
            failed = wall(e["dt"])
if last is None or failed is None:
    sys.exit("lava: the panic job: no %s" % (
        "console line" if last is None else "failure matched"))
print("%.3f %.3f" % (last, failed))
PY
	) && at=$(printk_at "$T/lava.console" "${times% *}") || {
		echo "lava: the panic job's log ends: $(tail -c 2000 "$T/lava.log")" >&2
		return 1
	}
	awk -v at="$at" -v failed="${times#* }" -v end="$end" \
	    'BEGIN { printf "%d %d\n", (failed - at) * 1000, end - at * 1000 }'
}

vm_lab lava
lava_root || { echo "lava: no LAVA root at $ROOT" >&2; exit 1; }
lava_files || exit 1
# plain: LAVA's device's qemu options, the kernel command line of its job
# and a port forward for OpenSSH
qemu=()
while read -r o a; do
	[ "$o" != -netdev ] || a=$a,hostfwd=tcp:$PLAIN_HOST:2222-:22
	qemu+=("$o" ${a:+"$a"})
done < <(sed -n 's/^ *- \(-[a-z].*\)$/\1/p' "$LAVA/device.yaml")
cmdline=$(sed -n 's/.*-append "\(.*\)"$/\1/p' "$LAVA/hackbench.yaml")
echo "[$PLAIN_HOST]:2222 $(cut -d' ' -f1,2 "$HILAB_LAB_DIR/keys/host_ed25519.pub")" >"$T/known_hosts"
ssh_args=(-q -o BatchMode=yes -o ConnectTimeout=2 -o "UserKnownHostsFile=$T/known_hosts"
    -i "$(vm_ssh identity)" -p 2222 "root@$PLAIN_HOST")

# plain: qemu started, until OpenSSH has run hackbench in it; prints ms.
plain() {
	local t0 pid ms end

	t0=$(now_ms) end=$(($(date +%s) + 180))
	qemu-system-x86_64 "${qemu[@]}" -kernel "$HILAB_LAB_KERNEL_BASE" \
	    -initrd "$HILAB_LAB_INITRD" -append "$cmdline" </dev/null >"$T/plain.console" 2>&1 &
	pid=$!
	until ssh "${ssh_args[@]}" hackbench -g 2 -l 100 >/dev/null 2>&1; do
		kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$end" ] ||
		    { kill "$pid" 2>/dev/null; wait "$pid"; return 1; }
		sleep 0.1
	done
	ms=$(($(now_ms) - t0))
	kill "$pid"
	wait "$pid"
	echo "$ms"
}
# hilab: the hackbench job; prints submit to `hilab wait` returning.
hilab() {
	local t0 id ms

	t0=$(now_ms)
	id=$(submit "$T/hackbench.yaml")
	"$hilab" wait --timeout 300 "$id" >/dev/null || return 1
	ms=$(($(now_ms) - t0))
	vm_done "$id"
	echo "lava: hilab: ready after $(sql "SELECT (started_at - $t0) || ' ms, ran ' || (finished_at - started_at) || ' ms' FROM runs WHERE job = $id")" >&2
	echo "$ms"
}
vm_job hackbench 'hackbench -g 2 -l 100 | sed -n "s/^Time: /t=/p"' >"$T/hackbench.yaml"
vm_job crash 'sleep 0.5; echo c > /proc/sysrq-trigger' >"$T/panic.yaml"

for r in $(seq "$rounds"); do
	echo "lava: round $r of $rounds" >&2
	hilab >>"$T/hilab.ms" || { echo "lava: hilab's job failed: $(tail -3 "$HILABD_LOG")" >&2; exit 1; }
	plain >>"$T/plain.ms" || { echo "lava: plain qemu did not run hackbench" >&2; exit 1; }
	lava hackbench.yaml >>"$T/lava.ms" || { echo "lava: LAVA's job failed: $(tail -3 "$T/lava.log")" >&2; exit 1; }
done
for r in $(seq "$rounds"); do
	echo "lava: panic $r of $rounds" >&2
	vm_panicked "$T/panic.yaml" >>"$T/hilab.panic" || exit 1
	lava_panicked >>"$T/lava.panic" || exit 1
done
h=$(median <"$T/hilab.ms") p=$(median <"$T/plain.ms") l=$(median <"$T/lava.ms")
what="boot the lab's kernel and image on a 4-vCPU VM (TCG) and run hackbench -g 2 -l 100 once, median of $rounds"
row "$what: the whole job through hilab (submit to \`hilab wait\` returning) against plain qemu with LAVA's device's options until OpenSSH has run it (ms)" \
    "$h" "$p" "$(ratio "$h" "$p")" "<= plain + 500" "$(le "$h" $((p + 500)))"
row "the same through LAVA (lava-run, no server) against plain (ms)" \
    "$l" "$p" "$(ratio "$l" "$p")" "-" "-"
row "the same through hilab against through LAVA (ms)" \
    "$h" "$l" "$(ratio "$h" "$l")" "< 1" "$(le "$(ratio "$h" "$l")" 0.999)"
for f in 1 2; do
	h=$(cut -d' ' -f$f "$T/hilab.panic" | median)
	l=$(cut -d' ' -f$f "$T/lava.panic" | median)
	if [ $f = 1 ]; then
		what="a kernel panic on that VM (sysrq c from the job), median of $rounds: the panic line on its console to the run failed, hilab against LAVA (ms)"
		goal="<= 1000, < LAVA"
	else
		what="the same to the job over (\`hilab wait\` returning; lava-run exiting) (ms)"
		goal="< LAVA"
	fi
	met=$(le "$h" "$l")
	[ $f = 2 ] || [ "$(le "$h" 1000)" = yes ] || met=no
	row "$what" "$h" "$l" "$(ratio "$h" "$l")" "$goal" "$met"
done
