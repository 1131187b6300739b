# Shared by the fault tests, sourced after lab_host_up: the namespace host
# as hilabd's one machine "demo" (database, socket, log and inventory in
# $LAB_TMP, torn down at exit) and job files of a shell command that times
# itself.
. "$HILAB_SRCDIR/tests/lib/hilabd.sh"
SUBMIT_ERR=$LAB_TMP/submit.err
daemon_lab_host demo
trap daemon_cleanup EXIT

# demo_job NAME [MACHINE] <<YAML: writes a job file of that name on
# MACHINE (default "demo") whose benchmarks (and anything else) are read
# from stdin; prints its path.
demo_job() {
	{
		printf 'name: %s\nmachines: [%s]\n' "$1" "${2:-demo}"
		cat
	} >"$LAB_TMP/$1.yaml"
	echo "$LAB_TMP/$1.yaml"
}

# took_job NAME MACHINE ITERATIONS WARMUPS COMMAND [JOB_LINE [KEY_LINE]]: a
# job file (demo_job's) of one benchmark NAME running the shell command
# COMMAND, whose "took N s" lines are its metric t; JOB_LINE, such as
# "rounds: 2", goes before the benchmarks, KEY_LINE, such as "timeout: 2s",
# into the benchmark.  Prints its path.
took_job() {
	demo_job "$1" "$2" <<YAML
${6:-}
benchmarks:
  - name: $1
    command: [sh, -c, "$5"]
    parser: regex
    parser_args: "t[s]=took ([0-9.]+) s"
    metrics: [{name: t, unit: s, direction: lower}]
    iterations: $3
    warmups: $4
    ${7:-}
YAML
}

# results JOB: how many iteration results the job stored.
results() {
	sql "SELECT COUNT(*) FROM run_results rr JOIN runs r ON r.id = rr.run WHERE r.job = $1"
}

# has_results JOB N: the job stored N results or more.
has_results() {
	[ "$(results "$1")" -ge "$2" ]
}

# job_state JOB: the job's state.
job_state() {
	sql "SELECT state FROM jobs WHERE id = $1"
}
