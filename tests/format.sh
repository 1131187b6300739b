#!/bin/sh
# The sources are in the house format: clang-format with the repository's
# .clang-format changes nothing (reformat with: clang-format -i FILE...).
set -eu
cd "${HILAB_SRCDIR:?HILAB_SRCDIR not set}"
. tests/lib/skip.sh
command -v clang-format >/dev/null || skip_missing "clang-format missing (apt-get install clang-format)"
files=$(git ls-files '*.c' '*.h' 2>/dev/null) || skip_missing "not a git checkout: no file list"
# shellcheck disable=SC2086
clang-format --dry-run -Werror $files
