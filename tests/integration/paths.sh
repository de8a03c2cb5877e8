#!/usr/bin/env bash
# Every file the repository's text names exists in the repository, and no
# text points at a file outside it (scripts/check-paths); the check is not
# blind (a planted reference to a missing file fails it).
set -u
bin=$1 src=$2
python3 "$src/scripts/check-paths" "$src" || { echo "FAIL: paths"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$src" ls-files >/dev/null 2>&1 || { echo "note: not a git checkout, planted check skipped"; exit 0; }
git clone -q "$src" "$tmp/t" 2>/dev/null || { echo "note: cannot clone the source tree, planted check skipped"; exit 0; }
echo "see models/device/no_such_model.c" >>"$tmp/t/docs/papers.md"
git -C "$tmp/t" -c user.email=t@t -c user.name=t commit -qam planted
python3 "$src/scripts/check-paths" "$tmp/t" | grep -q "no_such_model.c" || { echo "FAIL: planted path not found"; exit 1; }
echo ok
