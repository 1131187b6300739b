#!/usr/bin/env bash
# Seed 3 end to end on the EPYC stand-in: the example job
# examples/jobs/seed3-hackbench-epyc.yaml run by hilabd on a kexec server
# of 2 sockets x 4 cores x 2 threads.  What the lab cannot have is
# substituted, nothing else: the machine's name (the stand-in's), the four
# kernels' images (the lab's two Debian kernels, alternately, with the
# host image as initrd), and hackbench's loops (20, not the catalog's 1000,
# and 3 iterations, not 10: TCG on two cores is some 50 times slower than
# the EPYC).  4 kernels x 3 rounds x 5 group counts, every boot verified,
# the AMD-style table and the report of the job.
set -u
. "$HILAB_SRCDIR/tests/lib/server.sh"
server_test_init seed3 ssh

echo "1..8"
server_up epyc-sa kexec 127.0.0.43 2 4 2 2048
base=$HILAB_LAB_KERNEL_BASE
patched=$HILAB_LAB_KERNEL_PATCHED
sed -e 's/^machines: \[epyc-2s\]$/machines: [epyc-sa]/' \
    -e "s#/srv/kernels/push-lb/tip/vmlinuz#$base#" \
    -e "s#/srv/kernels/push-lb/push_only/vmlinuz#$patched#" \
    -e "s#/srv/kernels/push-lb/newidle_only/vmlinuz#$base#" \
    -e "s#/srv/kernels/push-lb/push+newidle/vmlinuz#$patched#" \
    -e "s#/srv/kernels/push-lb/[^/]*/initrd.img#$HILAB_LAB_INITRD#" \
    -e 's/^      groups: \(.*\)$/      groups: \1\n      loops: 20/' \
    -e 's/^    iterations: 10$/    iterations: 3/' \
    "$HILAB_SRCDIR/examples/jobs/seed3-hackbench-epyc.yaml" >"$T/seed3.yaml"
diff "$HILAB_SRCDIR/examples/jobs/seed3-hackbench-epyc.yaml" "$T/seed3.yaml" |
    sed 's/^/# /'
"$hilab" jobs check "$T/seed3.yaml" >/dev/null
check "the substituted job passes jobs check" test $? = 0
daemon_start
t0=$(date +%s)
server_submit "$T/seed3.yaml"
a=${JOB:-0}
server_wait 5400
check "seed 3 done on the stand-in" test $? = 0
echo "# job $a took $(($(date +%s) - t0)) s"
check "60 runs done: 4 kernels x 3 rounds x 5 group counts" test "$(sql "SELECT COUNT(*) FROM runs WHERE job = $a AND state = 'done'")" = 60
check "3 samples each" test "$(sql "SELECT COUNT(*) FROM samples s JOIN runs r ON r.id = s.run WHERE r.job = $a AND s.metric = 'time'")" = 180
check "kernels alternate by round" test "$(sql "SELECT group_concat(name, ' ') FROM (SELECT DISTINCT r.round, r.position / 5 p, k.name FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a ORDER BY r.round, p)")" = "tip push_only newidle_only push+newidle push+newidle newidle_only push_only tip tip push_only newidle_only push+newidle"
check "12 boots, each verified on its own boot id" test "$(sql "SELECT COUNT(DISTINCT json_extract(facts, '\$.boot_id')) FROM runs WHERE job = $a")" = 12
"$hilab" compare --job "$a" --style amd >"$T/amd.txt"
check "the AMD-style table has the four kernels" grep -q "tip.*push_only.*newidle_only.*push+newidle" "$T/amd.txt"
sed 's/^/# /' "$T/amd.txt"
"$hilab" report "$a" >"$T/report.txt"
check "the report shows the stand-in's 2 sockets" grep -q "topology: 2 socket" "$T/report.txt"
server_times | tail -4
daemon_stop TERM
exit $((failed > 0))
