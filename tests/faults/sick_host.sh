#!/usr/bin/env bash
# Sick hosts: a benchmark that leaves a daemon behind (killed when its
# iteration ends; its output reaches no later iteration), one that prints
# 100 MB (its head and tail kept, a declared metric in the middle a clear
# failure), one that hangs past its timeout, the agent's directory on a
# full filesystem (an error naming host and path; the failed run's spool
# freed, so the next job stores everything once there is room), and an
# agent file replaced by something else on the host (uploaded again,
# never half-spoken to), an agent directory others may write (refused).
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
eval "$(lab_host_up sick)"
. "$HILAB_SRCDIR/tests/faults/lib.sh"

# A second machine on the same host whose agent directory is a 24 MiB
# tmpfs, to fill, mounted where the host's sshd sees it (its own mount
# namespace, made by ip netns exec).
small=$LAB_TMP/small
mkdir -p "$small"
# on_sshd COMMAND...: runs it in the host's mount namespace.
on_sshd() { nsenter -t "$(lab_sshd_pid sick)" -m "$@"; }
on_sshd mount -t tmpfs -o size=24m,mode=0755 hilab-faults "$small" ||
    lab_fail "mount tmpfs"
sed -e 's/^name: demo/name: small/' -e "s|agent_dir: .*|agent_dir: $small|" \
    "$HILAB_MACHINES/demo.yaml" >"$HILAB_MACHINES/small.yaml"

# job NAME MACHINE ITERATIONS COMMAND: submits a job of one command whose
# output has "took N s" lines, metric t.
job() { submit "$(took_job "$1" "$2" "$3" 0 "$4")"; }
samples() { sql "SELECT GROUP_CONCAT(s.value, ' ') FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $1 ORDER BY s.iteration"; }
error() { sql "SELECT error FROM runs WHERE job = $1"; }
on_host() { ip netns pids "$NETNS" | xargs -r ps -o args= -p | grep -c "$1"; }
# matches REGEX TEXT: grep's verdict on one text.
matches() { grep -q "$1" <<<"$2"; }
spools() { on_sshd ls "$1/spool" 2>/dev/null | wc -l; }

echo "1..17"
daemon_start

# A daemon left behind that would print into its stdout after a second,
# every 0.1 s.
a=$(job leftover demo 3 "setsid sh -c 'sleep 1; while :; do echo took 9 s; sleep 0.1; done' & sleep 0.2; echo took 1 s")
"$hilab" wait --timeout 60 "$a" >/dev/null
check "a benchmark leaving a daemon: 3 samples, each its own" \
    test "$(job_state "$a")/$(samples "$a")" = "done/1.0 1.0 1.0"
echo "# $(sql "SELECT CAST(rr.output AS TEXT) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $a AND rr.seq = 0" | grep 'hilab-agent: killed')"
check "the daemon is killed when its iteration ends" test "$(on_host 'while :')" = 0
check "each iteration's output says what was killed" \
    test "$(sql "SELECT COUNT(*) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $a AND CAST(rr.output AS TEXT) LIKE '%hilab-agent: killed % the benchmark left running (the first: % (sh))%'")" = 3

# 100 MB of output: the result printed last is kept.
b=$(job chatty demo 1 "head -c 100000000 /dev/zero | tr -c x x; echo; echo took 2 s")
"$hilab" wait --timeout 120 "$b" >/dev/null
check "100 MB of output: the metric printed last is measured" \
    test "$(job_state "$b")/$(samples "$b")" = "done/2.0"
check "its output is kept cut, 4 MiB, marked truncated" \
    test "$(sql "SELECT rr.truncated || '/' || (LENGTH(rr.output) <= 4194304) || '/' || (CAST(rr.output AS TEXT) LIKE '%hilab-agent: % bytes of output left out here%') FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $b")" = 1/1/1
c=$(job middle demo 1 "head -c 50000000 /dev/zero | tr -c x x; echo; echo took 2 s; head -c 50000000 /dev/zero | tr -c y y")
"$hilab" wait --timeout 120 "$c" >/dev/null
check "a metric printed in the middle of 100 MB is a clear failure" \
    matches '^iteration 0: .* in the output (the output passed 4 MiB: only its head and its tail were kept)' "$(error "$c")"

# A benchmark that hangs past its timeout: killed, the run failed saying
# so, within seconds.
t0=$(date +%s)
h=$(submit "$(took_job hang demo 2 0 "echo took 1 s; sleep 600" "" "timeout: 2s")")
"$hilab" wait --timeout 60 "$h" >/dev/null
hang_s=$(( $(date +%s) - t0 ))
echo "# hang: job ended in $hang_s s: $(error "$h")"
check "a benchmark hanging past its 2 s timeout fails its run, saying so" \
    matches "^failed/.*timed out" "$(job_state "$h")/$(error "$h")"
check "the job ends within 20 s" test "$hang_s" -lt 20
check "nothing of it is left on the host" test "$(on_host 'sleep 600')" = 0

# The agent's directory on a full filesystem.
d=$(job first small 1 "echo took 1 s")
"$hilab" wait --timeout 60 "$d" >/dev/null
on_sshd dd if=/dev/zero of="$small/filler" bs=4k 2>/dev/null
e=$(job full small 2 "echo took 1 s")
"$hilab" wait --timeout 60 "$e" >/dev/null
echo "# full filesystem: $(error "$e")"
check "a full agent directory fails the run, naming host and path" \
    matches "^agent run \"[^\"]*\" failed on host \"small\": the agent's directory \"$small\" is on a full filesystem (0 KiB free)" "$(error "$e")"
on_sshd rm -f "$small/filler"
f=$(job roomy small 2 "echo took 1 s")
"$hilab" wait --timeout 60 "$f" >/dev/null
check "with room again, the next job stores every sample" \
    test "$(job_state "$f")/$(samples "$f")" = "done/1.0 1.0"
check "and no spool is left behind, the failed run's freed" test "$(spools "$small")" = 0

# The agent's file replaced by something that is not that agent.
agent=$(ls "$AGENT_DIR_REMOTE"/hilab-agent-* | head -1)
uploads() { grep -c "host \"demo\": uploaded .* to $agent" "$HILABD_LOG"; }
before=$(uploads)
rm -f "$agent"
printf '#!/bin/sh\necho not an agent\n' >"$agent"
chmod 755 "$agent"
g=$(job replaced demo 1 "echo took 3 s")
"$hilab" wait --timeout 60 "$g" >/dev/null
check "a replaced agent file is uploaded again" test "$(uploads)" = $((before + 1))
check "and the job runs with it" test "$(job_state "$g")/$(samples "$g")" = "done/3.0"
check "the file is the agent again" \
    test "$(sha256sum "$agent" | cut -c1-16)" = "$(basename "$agent" | sed 's/hilab-agent-//' | cut -c1-16)"
check "nothing left running on the host" test "$(on_host 'sleep\|while')" = 0

# An agent directory others may write: refused, naming host and path.
on_sshd chmod 0777 "$small"
k=$(job open small 1 "echo took 1 s")
"$hilab" wait --timeout 60 "$k" >/dev/null
echo "# writable agent directory: $(error "$k")"
check "an agent directory writable by others is refused, naming it" \
    matches "host \"small\": agent directory \"$small\": writable by group or others (mode 0777)" "$(error "$k")"
daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
