#!/usr/bin/env bash
# Boot times of the lab's 32-vCPU guest under a load of two spinning
# processes: one TCG thread for all vCPUs (the lab's emulator,
# scripts/qemu-tcg-single) against qemu's default of one thread per vCPU,
# in the same run, alternating in chunks so both see the same machine.
# Every boot is one boot (none made again); a boot that does not come up
# is counted by kind.  Run as root; brings the lab up (scripts/lab.sh).
#
#	bench/boot-tcg.sh BUILDDIR [CHUNKS [BOOTS]]	# default 5 chunks of 4
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: $0 BUILDDIR [CHUNKS [BOOTS]]}" && pwd)
chunks=${2:-5}
per=${3:-4}
[ "$(id -u)" = 0 ] || { echo "boot-tcg: run as root" >&2; exit 2; }
eval "$("$top/scripts/lab.sh" up)"
out=$(mktemp -d /tmp/hilab-boot-tcg.XXXXXX)
trap 'rm -rf "$out"' EXIT
single=/usr/local/libexec/hilab/qemu-tcg-single
default=/usr/bin/qemu-system-x86_64

# chunk EMULATOR: BOOTS boots of vm32, appended to that emulator's log.
chunk() {
	HILAB_LAB_BOOTS=$per HILAB_LAB_EMULATOR=$1 \
	    "$build/tests/lab/lab-vm" boots vm32 2>/dev/null |
	    grep '^boot ' >>"$out/$(basename "$1").log" || true
}

for i in $(seq 1 "$chunks"); do
	chunk "$single"
	chunk "$default"
	echo "chunk $i of $chunks done" >&2
done

# summary LOG: boots, up, hung, emulator failures, median and max seconds.
summary() {
	local n hung emu

	n=$(grep -c . "$1" || true)
	hung=$(grep -c ' FAILED (hang)' "$1" || true)
	emu=$(grep -c ' FAILED (emulator)' "$1" || true)
	grep -v ' FAILED ' "$1" | awk '{ print $(NF - 1) }' | sort -n |
	    awk -v n="$n" -v hung="$hung" -v emu="$emu" '{ t[++up] = $1 }
	    END {
		med = up % 2 ? t[(up + 1) / 2] : (t[up / 2] + t[up / 2 + 1]) / 2
		printf "%d %d %d %d %.1f %.1f\n", n, up, hung, emu, med, t[up]
	    }'
}
read -r n1 up1 hung1 emu1 med1 max1 <<<"$(summary "$out/$(basename "$single").log")"
read -r n2 up2 hung2 emu2 med2 max2 <<<"$(summary "$out/$(basename "$default").log")"
printf '%-34s %5s %4s %5s %8s %8s %8s\n' emulator boots up hung "emu.fail" \
    "median s" "max s"
printf '%-34s %5d %4d %5d %8d %8.1f %8.1f\n' "one TCG thread (qemu-tcg-single)" \
    "$n1" "$up1" "$hung1" "$emu1" "$med1" "$max1"
printf '%-34s %5d %4d %5d %8d %8.1f %8.1f\n' "qemu's default (thread per vCPU)" \
    "$n2" "$up2" "$hung2" "$emu2" "$med2" "$max2"
awk -v a="$med1" -v b="$med2" 'BEGIN {
	printf "median boot, one thread / default: %.2f\n", a / b }'
