#!/usr/bin/env bash
# The demo lab, end to end: install, build, bring up a lab host (OpenSSH's
# sshd in its own network namespace), start hilabd, submit a hackbench job,
# wait for it and print the comparison table.  Run as root from anywhere;
# the database is exported to ./hilab-demo.db at the end.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
out=$(pwd)/hilab-demo.db
cd "$top"

scripts/install-deps.sh
[ -f build/build.ninja ] || meson setup build >/dev/null
meson compile -C build >/dev/null

. tests/integration/lib.sh
lab_init
eval "$(lab_host_up demo)"
mkdir -p "$LAB_TMP/machines"
cat >"$LAB_TMP/machines/demo.yaml" <<YAML
name: demo
kind: ssh
arch: x86_64
notes: demo host (sshd in network namespace $NETNS)
ssh:
  host: $HOST
  port: $PORT
  user: $LOGIN
  identity: $KEY
  known_hosts: $KNOWN_HOSTS
  agent_dir: $AGENT_DIR_REMOTE
YAML
export HILAB_DB=$LAB_TMP/hilab.db HILAB_SOCKET=$LAB_TMP/control.sock
export HILAB_MACHINES=$LAB_TMP/machines HILAB_AGENT_DIR=$top/build/agents
hilab=build/controller/cli/hilab

build/controller/hilabd 2>"$LAB_TMP/hilabd.log" &
hilabd_pid=$!
trap 'kill $hilabd_pid 2>/dev/null; wait $hilabd_pid 2>/dev/null; lab_teardown' EXIT

$hilab machines list
job=$($hilab --json submit examples/jobs/hackbench-demo.yaml |
    sed -n 's/.*"job": *\([0-9]*\).*/\1/p')
$hilab wait "$job" || { $hilab logs "$job"; exit 1; }
echo
$hilab compare --job "$job"
$hilab export "$out" >/dev/null
echo
echo "database: $out (try: $hilab --db $out status $job)"
