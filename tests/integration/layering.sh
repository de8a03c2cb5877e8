#!/usr/bin/env bash
# Layering: no source file includes a header of a layer above its own,
# except the crossings scripts/check-layers lists with their reasons; and
# the check is not blind (a planted upward include fails it).
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$src/scripts/check-layers" "$src" || { echo "FAIL: layering"; exit 1; }
mkdir -p "$tmp/t"
cp -r "$src/sim" "$src/models" "$src/traces" "$tmp/t/"
printf '#include "models/policies/policy.h"\n' >>"$tmp/t/models/device/ideal.c"
out=$(python3 "$src/scripts/check-layers" "$tmp/t") && { echo "FAIL: planted upward include not found"; exit 1; }
echo "$out" | grep -q "models/device/ideal.c (device) includes models/policies/policy.h" ||
	{ echo "$out"; echo "FAIL: wrong report"; exit 1; }
echo ok
