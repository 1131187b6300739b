#!/usr/bin/env bash
# Confirmation and mail of sweep changes end to end on a real lab host
# (sshd in a network namespace), the real agent and SQLite.  The host runs
# one kernel, so a "kernel" change is modelled as the sweeps of sweep.sh
# model it, by the job file: a nap sweep whose command goes from sleeping
# 0.05 s to 0.15 s is suspected, confirmed by an A/B job of the two
# definitions alternating on the host, and mailed (to an mbox Python's
# mailbox module reads, and through a command fed on stdin).  A sweep
# whose series changed because the host did (the sleep read from a file
# the test rewrites), not its definition, is suspected too, and its A/B
# job, which measures both sides on the host as it is now, rejects it.  A
# sweep job that fails is mailed as well.
set -u
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
command -v python3 >/dev/null || skip_missing "python3 is not installed"
eval "$(lab_host_up demo)"

. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
daemon_lab_host demo
trap daemon_cleanup EXIT
MBOX=$LAB_TMP/lab.mbox
PIPED=$LAB_TMP/piped.txt

# nap_file NAME SLEEP: the job file of sweep NAME timing `sleep SLEEP`
# (a number, or a shell expression) from inside the command.
nap_file() {
	cat >"$LAB_TMP/$1.yaml" <<YAML
name: $1
machines: [demo]
benchmarks:
  - name: nap
    command: [sh, -c, "s=\$(date +%s%N); sleep $2; e=\$(date +%s%N); echo took \$(((e - s) / 1000))"]
    parser: regex
    parser_args: "took[us]=took ([0-9]+)"
    metrics: [{name: took, unit: us, direction: lower}]
    iterations: 3
YAML
}

# checked NAME K: the sweep's K-th job is its last one and checked.
checked() {
	[ "$(sql "SELECT COUNT(*) FROM sweeps s WHERE s.name = '$1'
	    AND s.checked_job = s.last_job AND (SELECT COUNT(*) FROM jobs
	    WHERE sweep = s.id) = $2")" = 1 ]
}

# sql_is VALUE QUERY: the query prints VALUE.
sql_is() {
	[ "$(sql "$2")" = "$1" ]
}

# jobs_of NAME: how many jobs the sweep queued.
jobs_of() {
	sql "SELECT COUNT(*) FROM jobs j JOIN sweeps s ON s.id = j.sweep
	    WHERE s.name = '$1'"
}

# queued NAME K: the sweep queued K jobs or more.
queued() {
	[ "$(jobs_of "$1")" -ge "$2" ]
}

# sweep_job NAME K: runs the sweep until its K-th job ended and was checked.
sweep_job() {
	"$hilab" sweep enable "$1" >/dev/null
	wait_for 30 queued "$1" "$2"
	"$hilab" sweep disable "$1" >/dev/null
	wait_for 60 checked "$1" "$2" ||
	    echo "# job $2 of sweep $1 was not checked within 60 s"
}

# change NAME FIELDS: the sweep's change as "FIELDS" (SQL, || joined).
change() {
	sql "SELECT $2 FROM sweep_changes c JOIN sweeps s ON s.id = c.sweep
	    WHERE s.name = '$1'"
}

# decided NAME: the sweep's change is neither suspected nor confirming.
decided() {
	[ "$(change "$1" "COUNT(*)")" -ge 1 ] &&
	    [ "$(change "$1" "SUM(state IN ('suspected', 'confirming'))")" = 0 ]
}

echo "1..16"
t0=$(date +%s)
daemon_start

# The definition changes: 3 jobs of 0.05 s, then 3 of 0.15 s.
nap_file real 0.05
"$hilab" sweep add real "$LAB_TMP/real.yaml" --every 1s --confirm-rounds 3 \
    --mbox "$MBOX" --mail-command tee --mail-command -a \
    --mail-command "$PIPED" >/dev/null
"$hilab" sweep disable real >/dev/null
for k in 1 2 3; do sweep_job real $k; done
nap_file real 0.15
for k in 4 5 6; do sweep_job real $k; done
check "the slower definition is suspected after its third job" test "$(change real "verdict || ' ' || (state IN ('suspected', 'confirming', 'confirmed'))")" = "regression 1"
wait_for 90 decided real
job3=$(sql "SELECT id FROM jobs WHERE name = 'real' ORDER BY id LIMIT 1 OFFSET 2")
job4=$(sql "SELECT id FROM jobs WHERE name = 'real' ORDER BY id LIMIT 1 OFFSET 3")
cj=$(change real confirm_job)
echo "# $(change real "state || ' p=' || confirm_p || ' effect=' || confirm_effect_pct")"
check "... and confirmed by its A/B job" test "$(change real state)" = confirmed
check "... whose p and effect are stored" test "$(change real "confirm_p < 0.05 AND confirm_effect_pct > 50")" = 1
spec=$(sql "SELECT spec FROM jobs WHERE id = $cj")
check "the A/B job: good and suspect kernels, a definition each, 3 alternating rounds on demo" \
    python3 -c 'import json,sys; j=json.loads(sys.argv[1]); b=j["benchmarks"]; sys.exit(not ([k["name"] for k in j["kernels"]] == ["good", "suspect"] and j["machines"] == ["demo"] and j["rounds"] == 3 and j["order"] == "alternate" and [x["kernel"] for x in b] == ["good", "suspect"] and "0.05" in b[0]["command"][2] and "0.15" in b[1]["command"][2]))' "$spec"
order=$(sql "SELECT group_concat(k, ' ') FROM (SELECT k.name AS k FROM runs r JOIN kernels k ON k.id = r.kernel WHERE r.job = $cj ORDER BY r.round, r.position)")
check "its runs alternate on the host" test "$order" = "good suspect suspect good good suspect"
check "a warning names the confirmation" test "$(sql "SELECT COUNT(*) FROM events WHERE level = 'warn' AND job = $cj AND message LIKE 'sweep \"real\": confirmed regression: nap took on demo: good %, suspect % us (+%, p=%, 9+9 samples) in job $cj'")" = 1
python3 - "$MBOX" "$cj" "$job3" "$job4" >"$LAB_TMP/mbox.out" 2>&1 <<'PY'
import mailbox, sys, email.utils
v = list(mailbox.mbox(sys.argv[1]))
assert len(v) == 1, len(v)
m = v[0]
s = m["Subject"]
assert s.startswith("[hilab] sweep real: regression confirmed: nap took on demo +"), s
assert email.utils.parsedate_to_datetime(m["Date"]) is not None
assert m["From"].startswith("hilab <hilab@"), m["From"]
b = m.get_payload()
for want in ["by job %s, 3 interleaved rounds" % sys.argv[2],
             "from job %s on, after job %s" % (sys.argv[4], sys.argv[3]),
             "hilab compare --job %s" % sys.argv[2],
             "hilab report: job %s" % sys.argv[2],
             "Environment", "Reproduce", "hilab submit"]:
    assert want in b, want
print("TABLE-CHECK")
PY
check "the mbox holds one mail: subject, date, summary, report" grep -q TABLE-CHECK "$LAB_TMP/mbox.out"
grep -q TABLE-CHECK "$LAB_TMP/mbox.out" || sed 's/^/# /' "$LAB_TMP/mbox.out"
"$hilab" compare --job "$cj" >"$LAB_TMP/compare.out" 2>/dev/null
check "... with the table hilab compare prints" python3 -c 'import mailbox,sys; b=list(mailbox.mbox(sys.argv[1]))[0].get_payload(); t=open(sys.argv[2]).read().strip().splitlines(); sys.exit(not (len(t) > 3 and all(l in b for l in t)))' "$MBOX" "$LAB_TMP/compare.out"
check "the mail command got the same message on stdin" python3 -c 'import sys; a=open(sys.argv[1]).read(); b=open(sys.argv[2]).read(); sys.exit(not (b and b in a))' "$MBOX" "$PIPED"
"$hilab" sweep show real >"$LAB_TMP/show.out"
check "sweep show lists the change, its state and its A/B job" grep -Eq "^  confirmed +regression +nap took on demo: job $job3 -> $job4, .* by job $cj: \\+[0-9.]+%, p=" "$LAB_TMP/show.out"
check "... and each job's kernel" grep -Eq "^ +$job4  done .* running \\(the kernel the machine runs\\)\$" "$LAB_TMP/show.out"

# The host changes, not the definition: suspected, then rejected.
echo 0.05 >"$LAB_TMP/host.t"
nap_file host "\$(cat $LAB_TMP/host.t)"
"$hilab" sweep add host "$LAB_TMP/host.yaml" --every 1s --mbox "$MBOX" >/dev/null
"$hilab" sweep disable host >/dev/null
for k in 1 2 3; do sweep_job host $k; done
echo 0.15 >"$LAB_TMP/host.t"
for k in 4 5 6; do sweep_job host $k; done
wait_for 90 decided host
echo "# $(change host "state || ' p=' || confirm_p || ' effect=' || confirm_effect_pct")"
check "a change of the host is suspected, then rejected by its A/B job" test "$(change host "verdict || ' ' || state")" = "regression rejected"
hspec=$(sql "SELECT spec FROM jobs WHERE id = $(change host confirm_job)")
check "... which ran one definition under both kernels" python3 -c 'import json,sys; j=json.loads(sys.argv[1]); sys.exit(not (len(j["benchmarks"]) == 1 and "kernel" not in j["benchmarks"][0] and [k["name"] for k in j["kernels"]] == ["good", "suspect"]))' "$hspec"
check "... and is not mailed" python3 -c 'import mailbox,sys; sys.exit(len(mailbox.mbox(sys.argv[1])) != 1)' "$MBOX"

# A sweep job that fails is mailed.
cat >"$LAB_TMP/broken.yaml" <<YAML
name: broken
machines: [demo]
benchmarks:
  - name: fails
    command: [sh, -c, "echo no luck >&2; exit 3"]
    parser: regex
    parser_args: "x=x ([0-9]+)"
    metrics: [{name: x, unit: s, direction: lower}]
    iterations: 1
YAML
"$hilab" sweep add broken "$LAB_TMP/broken.yaml" --every 1h --mbox "$MBOX" >/dev/null
wait_for 60 sql_is 1 "SELECT COUNT(*) FROM sweeps s WHERE s.name = 'broken' AND s.checked_job = s.last_job"
bj=$(sql "SELECT last_job FROM sweeps WHERE name = 'broken'")
check "the broken sweep's job failed" test "$(sql "SELECT state FROM jobs WHERE id = $bj")" = failed
check "... and was mailed" python3 -c 'import mailbox,sys; v=list(mailbox.mbox(sys.argv[1])); sys.exit(not (len(v) == 2 and v[1]["Subject"] == "[hilab] sweep broken: job %s failed" % sys.argv[2] and "hilab report: job %s" % sys.argv[2] in v[1].get_payload()))' "$MBOX" "$bj"
echo "# $(($(date +%s) - t0)) s"

daemon_stop TERM
daemon_log_on_failure
exit $((failed > 0))
