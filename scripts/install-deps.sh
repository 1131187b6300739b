#!/usr/bin/env bash
# Installs the Debian packages hilab needs (scripts/packages.txt); as root.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t pkgs < <(grep -v '^#' "$here/packages.txt" | grep -v '^$')
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
export DEBIAN_FRONTEND=noninteractive
for try in 1 2 3; do
	apt-get update -q >/dev/null && \
	    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null && exit 0
	echo "install-deps: apt-get failed (try $try), retrying" >&2
	sleep 5
done
echo "install-deps: could not install: ${missing[*]}" >&2
exit 1
