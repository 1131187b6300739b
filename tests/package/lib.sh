# Sourced by the package tests (TAP): check, with $T the test's directory.
#
#	check "apt installs it" apt-get install -y ./hilab.deb

n=0
failed=0
# check DESCRIPTION COMMAND...: one TAP line for the command's outcome; on
# failure, the last lines the command printed.
check() {
	local d=$1

	shift
	n=$((n + 1))
	if "$@" >"$T/check.out" 2>&1; then
		echo "ok $n - $d"
	else
		echo "not ok $n - $d"
		tail -n 20 "$T/check.out" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
}
