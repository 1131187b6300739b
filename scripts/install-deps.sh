#!/usr/bin/env bash
# Installs the Debian packages hilab needs (scripts/packages.txt), as root,
# then proves that each toolchain and tool works: a package can be
# installed and still be unusable (gcc-aarch64-linux-gnu without
# libc6-dev-arm64-cross links nothing).  A failed check names the step,
# the packages it needs and which of them are not installed.
#
#	scripts/install-deps.sh		# install what is missing, then check
#	scripts/install-deps.sh --check	# check only
set -eu
here=$(cd "$(dirname "$0")" && pwd)
. "$here/step.sh"
STEP_TAG=install-deps
mapfile -t pkgs < <(sed 's/#.*//' "$here/packages.txt" | awk 'NF { print $1 }')

# Prints the packages of "$@" that dpkg does not have installed.
not_installed()
{
	local p

	for p in "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		    grep -q 'ok installed' || echo "$p"
	done
}

# Installs the listed packages that are missing (three tries).
install_missing()
{
	local missing try

	mapfile -t missing < <(not_installed "${pkgs[@]}")
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "install-deps: installing ${#missing[@]} packages" >&2
	export DEBIAN_FRONTEND=noninteractive
	for try in 1 2 3; do
		step "apt-get update" apt-get update -q &&
		    step "apt-get install ${missing[*]}" apt-get install -y -q \
		    --no-install-recommends "${missing[@]}" && return 0
		echo "install-deps: apt-get failed (try $try)" >&2
		sleep 5
	done
	echo "install-deps: could not install: ${missing[*]}" >&2
	return 1
}

# check WHAT "PKG..." CMD...: runs CMD; on failure names WHAT, the packages
# it needs (each must be in packages.txt) and those not installed.
failed=0
check()
{
	local what=$1 need=$2 p absent

	shift 2
	for p in $need; do
		printf '%s\n' "${pkgs[@]}" | grep -qx "$p" || {
			echo "install-deps: $what needs $p, which" \
			    "scripts/packages.txt does not list" >&2
			failed=1
		}
	done
	step "$what" "$@" && return 0
	absent=$(not_installed $need | xargs)
	echo "install-deps: $what needs: $need${absent:+ (not installed: $absent)}" >&2
	failed=1
}

# Compiles and links a static C program with compiler $1, runs it with
# $2 (empty: directly) and expects it to print "ok".
static_program()
{
	local cc=$1 run=$2 dir rc=0

	dir=$(mktemp -d)
	printf '#include <stdio.h>\n#include <sys/utsname.h>\nint main(void)\n{\n\tstruct utsname u;\n\treturn uname(&u) != 0 || puts("ok") < 0;\n}\n' >"$dir/t.c"
	{ "$cc" -static -O2 -o "$dir/t" "$dir/t.c" &&
	    [ "$($run "$dir/t")" = ok ]; } || rc=1
	rm -rf "$dir"
	return $rc
}

# Builds a libFuzzer target with clang under ASan and UBSan (as
# scripts/fuzz.sh does: the libFuzzer runtime is there) and runs it once.
fuzz_program()
{
	local dir rc=0

	dir=$(mktemp -d)
	printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n);\nint\nLLVMFuzzerTestOneInput(const uint8_t *d, size_t n)\n{\n\t(void)d;\n\t(void)n;\n\treturn 0;\n}\n' >"$dir/t.c"
	{ clang -fsanitize=fuzzer,address,undefined -o "$dir/t" "$dir/t.c" &&
	    ASAN_OPTIONS=detect_leaks=0 "$dir/t" -runs=1 >/dev/null 2>&1; } ||
	    rc=1
	rm -rf "$dir"
	return $rc
}

# Every pkg-config module meson.build asks for is there.
pkgconfig_modules()
{
	pkg-config --print-errors --exists libssh libcrypto sqlite3 yaml-0.1 \
	    jansson gsl cairo cmocka libvirt libsystemd systemd
}

# scdoc writes a man page that man renders (doc/: the file-format pages).
man_page()
{
	printf 't(5)\n\n# NAME\n\nt - ok\n' | scdoc >/tmp/install-deps-t.5 &&
	    MANWIDTH=80 man -l /tmp/install-deps-t.5 2>/dev/null | col -bx | grep -q 't - ok'
	local rc=$?

	rm -f /tmp/install-deps-t.5
	return $rc
}

# Every program in "$@" is on PATH (or at its absolute path).
programs()
{
	local c rc=0

	for c in "$@"; do
		command -v "$c" >/dev/null || { echo "missing: $c"; rc=1; }
	done
	return $rc
}

# Every file in "$@" exists and is not empty.
files()
{
	local f rc=0

	for f in "$@"; do
		[ -s "$f" ] || { echo "missing: $f"; rc=1; }
	done
	return $rc
}

# virt-xml-validate accepts a minimal domain (it needs xmllint).
domain_schema()
{
	echo "<domain type='qemu'><name>t</name><memory>65536</memory><os><type>hvm</type></os></domain>" |
	    virt-xml-validate - domain
}

# Python 3's json module answers (test scripts check JSON output with it).
python_json()
{
	echo '{"ok": 1}' | python3 -m json.tool >/dev/null
}

# Compiles an OpenMP program (STREAM's build) and finds the tools the
# other source builds run: autoreconf, makeinfo, perl, /usr/bin/time.
openmp_program()
{
	local dir rc=0

	dir=$(mktemp -d)
	printf '#include <omp.h>\n#include <stdio.h>\nint main(void)\n{\n\treturn puts(omp_get_max_threads() > 0 ? "ok" : "no") < 0;\n}\n' >"$dir/t.c"
	{ gcc -O2 -fopenmp -o "$dir/t" "$dir/t.c" &&
	    [ "$("$dir/t")" = ok ]; } || rc=1
	rm -rf "$dir"
	[ $rc = 0 ] && programs autoreconf automake makeinfo perl /usr/bin/time
}

checks()
{
	check "native static link (gcc -static)" "build-essential" \
	    static_program gcc ""
	check "aarch64 static link (aarch64-linux-gnu-gcc -static)" \
	    "gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user-static" \
	    static_program aarch64-linux-gnu-gcc qemu-aarch64-static
	check "pkg-config modules of meson.build" "pkg-config libssh-dev \
	    libssl-dev libsqlite3-dev libyaml-dev libjansson-dev libgsl-dev \
	    libcairo2-dev libcmocka-dev libvirt-dev libsystemd-dev systemd" \
	    pkgconfig_modules
	check "man pages (scdoc, man, groff, col)" "scdoc man-db groff-base \
	    bsdextrautils" man_page
	check "the Debian package (scripts/deb.sh) and its unit" "dpkg-dev \
	    debhelper lintian systemd systemd-container" programs \
	    dpkg-buildpackage dh lintian systemd-analyze systemd-nspawn
	check "bash completion" "bash-completion" files \
	    /usr/share/bash-completion/bash_completion
	check "build tools" "meson ninja-build git" programs meson ninja git
	check "python3 with json" "python3" python_json
	check "the format check" "clang-format" programs clang-format
	check "libFuzzer targets (clang -fsanitize=fuzzer)" \
	    "clang libclang-rt-14-dev" fuzz_program
	check "memcheck (scripts/valgrind.sh)" "valgrind" programs valgrind
	check "ssh hosts (sshd in a network namespace)" "openssh-server \
	    openssh-client openssh-sftp-server iproute2 util-linux mount" \
	    programs /usr/sbin/sshd ssh ssh-keygen \
	    /usr/lib/openssh/sftp-server ip unshare mount
	check "benchmarks" "rt-tests dbench sysbench stress-ng" programs \
	    hackbench tbench tbench_srv sysbench stress-ng
	check "benchmark builds from source (the mirror's tarballs)" \
	    "build-essential autoconf automake texinfo perl time" \
	    openmp_program
	check "database tools" "sqlite3" programs sqlite3
	check "time zones (sweeps at HH:MM local time)" "tzdata" \
	    files /usr/share/zoneinfo/America/New_York
	check "power control" "ipmitool openipmi" programs ipmitool ipmi_sim
	check "bare-metal stand-ins (scripts/lab-server.sh)" "kexec-tools \
	    mmdebstrap fdisk e2fsprogs util-linux qemu-utils" programs \
	    /usr/sbin/kexec mmdebstrap sfdisk mkfs.ext4 losetup partx qemu-img
	check "the VM lab" "libvirt-daemon libvirt-daemon-driver-qemu \
	    libvirt-clients qemu-system-x86 qemu-utils busybox-static" \
	    programs libvirtd virtlogd virsh qemu-system-x86_64 qemu-img \
	    busybox
	check "domain XML schema check (virt-xml-validate)" \
	    "libvirt-clients libxml2-utils" domain_schema
	check "kernel build tools" "bc flex bison xz-utils zstd cpio kmod file" \
	    programs bc flex bison xz zstd cpio depmod file
	check "kernel sources and headers" "linux-source-6.1 libelf-dev" \
	    files /usr/src/linux-source-6.1.tar.xz /usr/include/libelf.h
}

[ "${1:-}" = --check ] || install_missing
checks
[ $failed -eq 0 ] || { echo "install-deps: some checks failed (above)" >&2; exit 1; }
