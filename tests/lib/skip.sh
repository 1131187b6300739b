# Sourced by shell tests: the two ways a test may not run.
#
#	skip_missing "hackbench missing (apt-get install rt-tests)"
#	skip_missing_tap "..."		# the same in a TAP test
#	skip_machine "no cgroup2 cpu controller on this host"
#
# A missing program, package, file or privilege is an install step that
# did not happen: in CI (CI=true) it fails the test, elsewhere it skips
# (exit 77 for meson).  skip_machine is for what a machine cannot have;
# the README's Tests section lists each such case.

# Skips, or fails in CI, for something the install steps should provide.
skip_missing()
{
	if [ "${CI:-}" = true ]; then
		echo "FAIL: missing in CI: $*" >&2
		exit 1
	fi
	echo "SKIP: $*" >&2
	exit 77
}

# The same for a TAP test: the plan "1..0 # SKIP", or a bail-out in CI.
skip_missing_tap()
{
	if [ "${CI:-}" = true ]; then
		echo "Bail out! missing in CI: $*"
		exit 1
	fi
	echo "1..0 # SKIP $*"
	exit 0
}

# Skips for something this machine cannot have.
skip_machine()
{
	echo "SKIP: $*" >&2
	exit 77
}
