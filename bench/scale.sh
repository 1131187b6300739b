#!/usr/bin/env bash
# One hilabd driving N ssh hosts (sshd in network namespaces) for each N
# of a list (bench/run's scale part): a job of 3 iterations of "sleep
# 0.2" on all of them, then the same job again once HISTORY ended jobs of
# N runs each are stored.  hilabd's CPU time (utime + stime from /proc)
# from submit to `hilab wait` returning, per host; its peak RSS and
# threads.  Rows on stdout: CPU per host against the smallest N's, against
# the same N without history, and the peak RSS.  Root.
#
#	bench/scale.sh HISTORY N,N... BUILD_DIR
set -u
history=${1:?history} list=${2:?N,N...}
export HILAB_BUILDDIR=${3:?build dir}
export HILAB_SRCDIR=${HILAB_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
. "$HILAB_SRCDIR/bench/lib.sh"
. "$HILAB_SRCDIR/tests/integration/lib.sh"
lab_init
. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
trap daemon_cleanup EXIT
T=$LAB_TMP
max=$(tr , '\n' <<<"$list" | sort -n | tail -1)
export HILAB_MACHINES=$T/hosts
mkdir "$HILAB_MACHINES"
for i in $(seq 1 "$max"); do
	eval "$(lab_host_up "h$i")"
	machine_yaml "h$i"
done
echo "scale: $max hosts up" >&2

# cpu_ms: hilabd's user + system time in ms.
cpu_ms() {
	awk -v hz="$(getconf CLK_TCK)" '{ printf "%d\n", ($14 + $15) * 1000 / hz }' "/proc/$daemon_pid/stat"
}
# status KEY: a field of hilabd's /proc status (its first number).
status() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$daemon_pid/status"; }
# job: the measured job once; prints hilabd's CPU ms for it and its wall ms.
job() {
	local c0 t0 id

	c0=$(cpu_ms) t0=$(now_ms)
	id=$(submit "$T/job.yaml")
	"$hilab" wait --timeout 900 "$id" >/dev/null ||
	    { echo "scale: job $id did not end done: $(tail -3 "$HILABD_LOG")" >&2; exit 1; }
	echo "$(($(cpu_ms) - c0)) $(($(now_ms) - t0))"
}
# stored N: HISTORY ended jobs of N done runs each, written as hilabd
# would have left them.
stored() {
	sql "INSERT OR IGNORE INTO kernels (id, name, spec, spec_hash, created_at) VALUES (1000000, 'old', '{}', 'old', 0);
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < $history)
INSERT INTO jobs (id, name, spec, state, submitted_at, finished_at) SELECT 1000000 + i, 'old' || i, '{}', 'done', 0, 0 FROM k;
WITH RECURSIVE k(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM k WHERE i < $history * $1 - 1)
INSERT INTO runs (job, machine, kernel, benchmark, iterations, state)
    SELECT 1000001 + i / $1, 'h' || (1 + i % $1), 1000000, 'b', 3, 'done' FROM k;"
}

declare -A cpu
for n in $(tr , ' ' <<<"$list"); do
	export HILAB_DB=$T/n$n.db HILAB_SOCKET=$T/n$n.sock HILAB_MACHINES=$T/m$n
	HILABD_LOG=$T/n$n.log
	mkdir -p "$HILAB_MACHINES"
	names=
	for i in $(seq 1 "$n"); do
		cp "$T/hosts/h$i.yaml" "$HILAB_MACHINES/"
		names+="${names:+, }h$i"
	done
	cat >"$T/job.yaml" <<YAML
name: scale
machines: [$names]
benchmarks:
  - name: nap
    command: [sh, -c, 'sleep 0.2; echo t=0.2']
    parser: keyvalue
    metrics: [{name: t, unit: s, direction: lower}]
    iterations: 3
    warmups: 0
YAML
	daemon_start || exit 1
	job >/dev/null # installs the agents
	c0=$(cpu_ms)
	sleep 10
	idle=$(($(cpu_ms) - c0))
	read -r c w < <(job)
	[ -n "${c:-}" ] || exit 1
	stored "$n"
	read -r ch wh < <(job)
	[ -n "${ch:-}" ] || exit 1
	rss=$(($(status VmHWM) / 1024)) now=$(($(status VmRSS) / 1024))
	threads=$(status Threads)
	daemon_stop TERM
	cpu[$n]=$(ratio "$c" "$n")
	echo "scale: N=$n: job ${w} ms, CPU ${c} ms; with $history jobs stored ${wh} ms, CPU ${ch} ms; idle ${idle} ms in 10 s; peak RSS ${rss} MB, ${now} MB after, $threads threads" >&2
	if [ -z "${first:-}" ]; then
		first=$n
		row "hilabd's CPU per host, a job of 3 x 0.2 s on $n hosts ($w ms) (ms)" "${cpu[$n]}" - - - -
	else
		r=$(ratio "${cpu[$n]}" "${cpu[$first]}")
		row "hilabd's CPU per host, a job of 3 x 0.2 s on $n hosts ($w ms) against on $first hosts (ms)" \
		    "${cpu[$n]}" "${cpu[$first]}" "$r" "<= 1.2" "$(le "$r" 1.2)"
	fi
	hr=$(ratio "$ch" "$c")
	row "the same job on $n hosts with $history jobs stored ($wh ms) against without (hilabd's CPU, ms)" \
	    "$ch" "$c" "$hr" "<= 1.2" "$(le "$hr" 1.2)"
	row "hilabd's peak RSS with $n hosts ($now MB after the jobs; $threads threads; idle CPU $idle ms in 10 s) (MB)" \
	    "$rss" "-" "-" "< 100 at 200" "$(if [ "$n" -lt 200 ]; then echo -; else le "$rss" 99; fi)"
done
