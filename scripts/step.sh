# Sourced by the scripts the README shows: runs a named step quietly and,
# when it fails, says which step failed and shows the last lines of what
# it printed (all of it stays in a log file that is named too).
#
#	step "build (meson compile -C build)" meson compile -C build
#
# STEP_TAG prefixes the messages (default: the script's name).

# Runs "$@" as step $1 with its output in a log; 0 or the step's status.
step()
{
	local name=$1 log rc=0

	shift
	log=$(mktemp "${TMPDIR:-/tmp}/hilab-step.XXXXXX")
	"$@" >"$log" 2>&1 </dev/null || rc=$?
	if [ "$rc" -ne 0 ]; then
		step_report "$name" "$rc" "$log"
		return "$rc"
	fi
	rm -f "$log"
}

# Tells that step $1 failed with status $2 and shows the end of log $3.
step_report()
{
	local tag=${STEP_TAG:-$(basename "$0" .sh)}

	echo "$tag: step \"$1\" failed (exit status $2); its last lines:" >&2
	tail -n "${STEP_LINES:-25}" "$3" | sed 's/^/  | /' >&2
	echo "$tag: the whole output is in $3" >&2
}
