#!/usr/bin/env bash
# The demo lab, end to end: install, build, bring up the lab (libvirtd,
# two Debian kernels as "base" and "patched", a host image; a 32-vCPU VM,
# 2 sockets x 8 cores x 2 threads, booted with rt_group_sched=0) and a
# bare-metal stand-in (OpenSSH's sshd in its own network namespace), start
# hilabd, run hackbench on the VM under both kernels in alternating rounds
# and on the namespace host, and print the comparison tables.  Run as root;
# the database is exported to ./hilab-demo.db at the end.  Quiet on
# success; a step that fails is named with the last lines it printed.  With
# --installed it runs the installed hilab, hilabd, agents, catalog and
# example job (the Debian package, or meson install) instead of building
# this tree; the lab itself still comes from this tree (scripts/lab.sh).
#
#	scripts/demo.sh [--installed]
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(pwd)/hilab-demo.db
cd "$top"
t0=$(date +%s)

. scripts/step.sh
scripts/install-deps.sh
if [ "${1:-}" = --installed ]; then
	hilab=$(command -v hilab) || { echo "demo: no hilab installed" >&2; exit 1; }
	hilabd=$(PATH=$PATH:/usr/sbin:/usr/local/sbin command -v hilabd) ||
	    { echo "demo: no hilabd installed" >&2; exit 1; }
	examples=$(dirname "$(dirname "$hilab")")/share/doc/hilab/examples
else
	[ -f build/build.ninja ] || step "meson setup build" meson setup build
	step "build (meson compile -C build)" meson compile -C build
	hilab=build/cli/hilab hilabd=build/hilabd/hilabd examples=examples
	export HILAB_AGENT_DIR=$top/build/agents
fi
lab_env=$(scripts/lab.sh up) ||
    { echo "demo: the lab did not come up (scripts/lab.sh up, above)" >&2; exit 1; }
eval "$lab_env"

. tests/integration/lib.sh
lab_init
host_env=$(lab_host_up demo) ||
    { echo "demo: the namespace host did not come up (above)" >&2; exit 1; }
eval "$host_env"
machines=$LAB_TMP/machines
mkdir -p "$machines"
cp "$HILAB_LAB_DIR/machines/vm32.yaml" "$machines/"
cat >"$machines/demo.yaml" <<YAML
name: demo
kind: ssh
notes: bare-metal stand-in (sshd in network namespace $NETNS)
ssh:
  host: $HOST
  port: $PORT
  user: $LOGIN
  identity: $KEY
  known_hosts: $KNOWN_HOSTS
  agent_dir: $AGENT_DIR_REMOTE
YAML
cat >"$LAB_TMP/vm32-kernels.yaml" <<YAML
name: vm32-two-kernels
description: hackbench on a 32-vCPU VM, base and patched in alternating rounds
machines: [vm32]
kernels:
  - {name: base, image: $HILAB_LAB_KERNEL_BASE}
  - {name: patched, image: $HILAB_LAB_KERNEL_PATCHED}
rounds: 2
order: alternate
benchmarks:
  - name: hackbench
    params: {groups: [1, 2], loops: 20}
    iterations: 3
    warmups: 1
YAML

export HILAB_DB=$LAB_TMP/hilab.db HILAB_SOCKET=$LAB_TMP/control.sock
export HILAB_MACHINES=$machines
"$hilabd" 2>"$LAB_TMP/hilabd.log" &
hilabd_pid=$!
trap 'rc=$?; kill $hilabd_pid 2>/dev/null || true
    wait $hilabd_pid 2>/dev/null || true; lab_teardown $rc' EXIT
# Shows why hilabd or a job failed: the end of hilabd's log.
hilabd_log() { echo "demo: last lines of hilabd's log:" >&2; tail -n 25 "$LAB_TMP/hilabd.log" >&2; }
for _ in $(seq 1 100); do [ -S "$HILAB_SOCKET" ] && break; sleep 0.05; done
[ -S "$HILAB_SOCKET" ] || { echo "demo: hilabd did not start" >&2; hilabd_log; exit 1; }

$hilab machines list
submit() { $hilab --json submit "$1" | sed -n 's/.*"job": *\([0-9]*\).*/\1/p'; }
vm=$(submit "$LAB_TMP/vm32-kernels.yaml")
host=$(submit "$examples/jobs/hackbench-demo.yaml")
$hilab wait "$host" || { $hilab logs "$host"; hilabd_log; exit 1; }
$hilab wait "$vm" || { $hilab logs "$vm"; hilabd_log; exit 1; }
echo
echo "== boots of the 32-vCPU VM made again, and why =="
$hilab logs "$vm" | grep -F 'booting again' || echo "none: every boot came up"
echo
echo "== hackbench on the 32-vCPU VM (rt_group_sched=0), base vs patched =="
$hilab compare --job "$vm"
echo
echo "== hackbench on the namespace host, running kernel =="
$hilab compare --job "$host"
$hilab export "$out" >/dev/null
echo
echo "demo done in $(($(date +%s) - t0)) s; database: $out"
echo "try: $hilab --db $out report $vm"
