#!/bin/sh
# Lab test of kernel builds: a real Linux 6.1 tree (Debian's linux-source),
# a two-patch series written by git format-patch, the small config of the lab
# (tinyconfig plus a fragment), then the driver (argument 1) builds, checks
# and boots the variants.  Needs git, gcc, make, flex, bison, bc, libelf-dev;
# boots with qemu-system-x86_64 when it is installed.
set -eu

driver=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/skip.sh"
lab=${HILAB_LAB_CACHE:-/var/cache/hilab/lab}
for tool in git gcc make flex bison bc; do
	command -v $tool >/dev/null ||
	    skip_missing "lab_kernels: $tool not installed"
done
mkdir -p "$lab"
rc=0
src=$(flock "$lab/.source.lock" "$here/lab_source.sh") || rc=$?
if [ $rc -ne 0 ]; then
	exit $rc
fi
# A run directory of its own: test runs from several build directories may
# overlap.  Its worktree is a few GB: removed at the end unless kept.
run=$(mktemp -d "$lab/kernels-run.XXXXXX")
cleanup() {
	if [ -z "${HILAB_KEEP_LAB:-}" ]; then
		rm -rf "$run"
		git -C "$src" worktree prune
	fi
}
trap cleanup EXIT
git -C "$src" worktree prune
base=$(git -C "$src" rev-parse HEAD)

"$here/lab_series.sh" "$src" "$run"

cat > "$run/lab.config" <<'EOF'
CONFIG_64BIT=y
CONFIG_PRINTK=y
CONFIG_TTY=y
CONFIG_SERIAL_8250=y
CONFIG_SERIAL_8250_CONSOLE=y
CONFIG_BLK_DEV_INITRD=y
CONFIG_RD_GZIP=y
CONFIG_BINFMT_ELF=y
CONFIG_BINFMT_SCRIPT=y
CONFIG_DEVTMPFS=y
CONFIG_PROC_FS=y
CONFIG_SYSFS=y
CONFIG_SMP=y
CONFIG_KEXEC=y
CONFIG_CGROUPS=y
CONFIG_CPUSETS=y
CONFIG_CGROUP_SCHED=y
CONFIG_FAIR_GROUP_SCHED=y
CONFIG_HOTPLUG_CPU=y
CONFIG_NET=y
CONFIG_INET=y
CONFIG_UNIX=y
CONFIG_PCI=y
CONFIG_VIRTIO_MENU=y
CONFIG_VIRTIO_PCI=y
CONFIG_NETDEVICES=y
CONFIG_NET_CORE=y
CONFIG_VIRTIO_NET=y
CONFIG_ACPI=y
EOF
"$driver" "$src" "$base" "$run"

# The command line over the same cache, when this hilab has "kernels".
hilab=${HILAB_BUILDDIR:-.}/cli/hilab
export HILAB_KERNEL_CACHE=$run/cache
if ! "$hilab" kernels list > "$run/list.txt" 2>&1; then
	cat "$run/list.txt"
	echo "Bail out! hilab kernels list failed"
	exit 1
fi
cat "$run/list.txt"
fail=0
for meta in "$run"/cache/builds/*/meta.json; do
	id=$(basename "$(dirname "$meta")")
	grep -q "^$id " "$run/list.txt" ||
	    { echo "not ok - list lacks $id"; fail=1; }
	"$hilab" kernels show "$(echo "$id" | cut -c1-8)" > "$run/show.txt"
	grep -q "^build id:  $id" "$run/show.txt" &&
	    grep -q "^build log (last lines):" "$run/show.txt" ||
	    { echo "not ok - show $id"; fail=1; }
done
# A job naming the base build's final .config: "make olddefconfig" gives the
# same config, so every kernel is found in the cache without a make run.
basemeta=$(grep -l '"name": "base"' "$run"/cache/builds/*/meta.json)
basecfg=$(dirname "$basemeta")/config
{
	echo "name: lab-kernels"
	echo "machines: [lab]"
	echo "benchmarks: [{name: hackbench}]"
	echo "kernels:"
	for n in 0 1 2; do
		echo "  - {name: k$n, git: $src, base: $base,"
		echo "     series: $run/good.mbox, patches: $n, config: $basecfg}"
	done
} > "$run/job.yaml"
"$hilab" kernels build "$run/job.yaml" > "$run/build.txt"
cat "$run/build.txt"
for meta in "$run"/cache/builds/*/meta.json; do
	id=$(basename "$(dirname "$meta")")
	grep -q " $id  cached " "$run/build.txt" ||
	    { echo "not ok - kernels build did not find $id cached"; fail=1; }
done
[ $fail -eq 0 ] && echo "ok - hilab kernels list, show and build"
exit $fail
