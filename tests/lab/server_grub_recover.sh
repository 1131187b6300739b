#!/usr/bin/env bash
# A kernel that does not come back on the grub stand-in: grub-reboot picks
# it for one boot, it panics (its initrd has no /nonexistent, so the kernel
# mounts root= itself and cannot: a UUID needs the initrd), the BMC
# power-cycles the server and grub's default entry, never changed, brings
# the known-good kernel back: the one-shot entry is used once.  The run
# fails naming kernel, machine and the panic with its console excerpt, a
# health check passes before the next run, and the job's other kernel is
# measured.
set -u
. "$HILAB_SRCDIR/tests/lib/server.sh"
server_grub_init srvgr

echo "1..11"
server_up grub-rec grub 127.0.0.46 1 2 1 1536
default=$(server_ssh 'grep ^GRUB_DEFAULT= /etc/default/grub; md5sum </boot/vmlinuz-*')
b=$HILAB_LAB_RELEASE_BASE
p=$HILAB_LAB_RELEASE_PATCHED
server_job grub-recover 1 "  - {name: broken, image: $K/$b/boot/vmlinuz-$b, modules: $K/$b, cmdline: rdinit=/nonexistent panic=0}
  - {name: good, image: $K/$p/boot/vmlinuz-$p, modules: $K/$p}" >/dev/null
events() { sql "SELECT COUNT(*) FROM events WHERE job = $1 AND message LIKE '$2'"; }
daemon_start
t0=$(date +%s)
a=$(submit "$T/grub-recover.yaml")
"$hilab" wait --timeout 2400 "$a" >/dev/null
echo "# job $a took $(($(date +%s) - t0)) s"
check "the panicking kernel's run failed, naming kernel, machine and the panic" \
    test "$(sql "SELECT COUNT(*) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a AND k.name = 'broken' AND r.error LIKE 'machine \"grub-rec\": kernel \"broken\" (grub) panicked at boot: %Kernel panic%'")" = 1
check "its console excerpt is kept with the run" \
    test "$(sql "SELECT COUNT(*) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a AND k.name = 'broken' AND r.boot_failed = 1 AND r.console LIKE '%Kernel panic%'")" = 1
check "one power cycle through the BMC" \
    test "$(events "$a" 'host "grub-rec" does not answer (its kernel did not come back): power cycle through BMC %')" = 1
check "the known-good kernel answered after it" \
    test "$(events "$a" 'host "grub-rec" answers again % after the power cycle; a health check comes before its next run')" = 1
check "a health check passed on it" \
    test "$(sql "SELECT COUNT(*) FROM events WHERE machine = 'grub-rec' AND message LIKE 'health check passed in % machine \"grub-rec\" is good again'")" = 1
check "the good kernel measured, booted through its own entry" \
    test "$(sql "SELECT COUNT(*) FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $a AND k.name = 'good' AND r.state = 'done' AND json_extract(r.facts, '\$.\"kernel.release\"') = '$p' AND json_extract(r.facts, '\$.\"kernel.cmdline\"') GLOB 'BOOT_IMAGE=*/hilab/[0-9a-f]*/vmlinuz *'")" = 1
check "the machine is good after the job" \
    test "$(sql "SELECT health FROM machines WHERE name = 'grub-rec'")" = good
check "and back on its known-good kernel" server_back_known_good
check "the default entry did not change" \
    test "$(server_ssh 'grep ^GRUB_DEFAULT= /etc/default/grub; md5sum </boot/vmlinuz-*')" = "$default"
check "no one-shot entry left" test "$(server_ssh grub-editenv list)" = "next_entry="
check "the broken kernel's panic is in the console log" \
    grep -qs 'Kernel panic' "$SERVER_DIR"/consoles/*.log
sql "SELECT '# ' || datetime(time / 1000, 'unixepoch') || ' ' || message FROM events WHERE job = $a AND (message LIKE 'booting%' OR message LIKE 'host%' OR message LIKE 'health%' OR level = 'error') ORDER BY id"
server_times
daemon_stop TERM
exit $((failed > 0))
