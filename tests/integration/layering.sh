#!/usr/bin/env bash
# Layering: no source file includes a header of a layer above its own,
# except the crossings scripts/check-layers lists with their reasons; and
# the check is not blind (a planted upward include fails it, and so does
# models/stack/stack_int.h included from mm's own header).
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
# mm's and fs's own headers no longer need the task/stack core: including it
# there fails even though their folders may include it from .c files
printf '#include "models/stack/stack_int.h"\n' >>"$tmp/t/models/mm/mm.h"
out=$(python3 "$src/scripts/check-layers" "$tmp/t") && { echo "FAIL: stack_int.h in mm.h not found"; exit 1; }
echo "$out" | grep -q "models/mm/mm.h (mm) includes models/stack/stack_int.h" ||
	{ echo "$out"; echo "FAIL: wrong report for mm.h"; exit 1; }
echo ok
