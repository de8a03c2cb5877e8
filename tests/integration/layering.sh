#!/usr/bin/env bash
# Layering: no source file includes a header of a layer above its own, and
# no object calls a function (or names a table) defined in a layer above its
# own, except the crossings scripts/check-layers lists with their reasons;
# and the check is not blind: a planted upward include fails it, so does the
# an mm or fs file including a header of a layer above (the stack's, or a
# types-only part of fs that only the sched layer's task may embed), a
# function declared in a shared or embedded types header, and a planted
# upward call.
set -u
bin=$1 src=$2
build=$(cd "$(dirname "$bin")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$src/scripts/check-layers" "$src" --objects "$build" || { echo "FAIL: layering"; exit 1; }
mkdir -p "$tmp/t"
cp -r "$src/sim" "$src/models" "$src/traces" "$tmp/t/"
cp -r "$tmp/t" "$tmp/clean"
printf '#include "models/policies/policy.h"\n' >>"$tmp/t/models/device/ideal.c"
out=$(python3 "$src/scripts/check-layers" "$tmp/t") && { echo "FAIL: planted upward include not found"; exit 1; }
echo "$out" | grep -q "models/device/ideal.c (device) includes models/policies/policy.h" ||
	{ echo "$out"; echo "FAIL: wrong report"; exit 1; }
# an mm or fs file including a header of a layer above fails: mm the
# stack's, fs the stack's internal one, and mm fs's types-only part, which
# only the sched layer's task may embed
printf '#include "models/stack/stack.h"\n' >>"$tmp/t/models/mm/mm.h"
printf '#include "models/stack/stack_int.h"\n' >>"$tmp/t/models/fs/journal.c"
printf '#include "models/fs/fs_types.h"\n' >>"$tmp/t/models/mm/reclaim.c"
out=$(python3 "$src/scripts/check-layers" "$tmp/t") && { echo "FAIL: upper headers in mm and fs not found"; exit 1; }
for w in "models/mm/mm.h (mm) includes models/stack/stack.h (stack)" \
	"models/fs/journal.c (fs) includes models/stack/stack_int.h (stack)" \
	"models/mm/reclaim.c (mm) includes models/fs/fs_types.h (fs)"; do
	echo "$out" | grep -qF "$w" || { echo "$out"; echo "FAIL: no report '$w'"; exit 1; }
done
# an embedded part declares no call either
printf 'void mm_types_planted(int x);\n' >>"$tmp/t/models/mm/mm_types.h"
out=$(python3 "$src/scripts/check-layers" "$tmp/t") && { echo "FAIL: function in an embedded header not found"; exit 1; }
echo "$out" | grep -q "models/mm/mm_types.h (embedded) declares a function" ||
	{ echo "$out"; echo "FAIL: wrong report for mm_types.h"; exit 1; }
# a shared header declares no call
printf 'void stack_op_planted(int x);\n' >>"$tmp/t/models/stack/stack_op.h"
out=$(python3 "$src/scripts/check-layers" "$tmp/t") && { echo "FAIL: function in a shared header not found"; exit 1; }
echo "$out" | grep -q "models/stack/stack_op.h (shared) declares a function" ||
	{ echo "$out"; echo "FAIL: wrong report for stack_op.h"; exit 1; }
# an upward call, from the objects: mm calls a function of the stack
# (the planted files are built here, so their names are put together)
cc=${CC:-cc}
m=models; mm=$m/mm/planted st=$m/stack/planted sc=$m/sched/planted
o=$tmp/b/CMakeFiles/mobisim_core.dir
mkdir -p "$o/models/mm" "$o/models/stack" "$o/models/sched"
printf 'void stack_planted(void);\nvoid mm_planted(void) { stack_planted(); }\n' >"$tmp/clean/$mm.c"
printf 'void stack_planted(void) {}\n' >"$tmp/clean/$st.c"
printf 'void mm_planted(void);\nvoid sched_planted(void) { mm_planted(); }\n' >"$tmp/clean/$sc.c"
for f in "$mm.c" "$st.c" "$sc.c"; do
	"$cc" -c "$tmp/clean/$f" -o "$o/$f.o" || { echo "FAIL: cannot compile the planted call"; exit 1; }
done
out=$(python3 "$src/scripts/check-layers" "$tmp/clean" --objects "$tmp/b") &&
	{ echo "FAIL: planted upward call not found"; exit 1; }
echo "$out" | grep -q "$mm.c (mm) calls stack_planted of $st.c (stack)" ||
	{ echo "$out"; echo "FAIL: wrong report for the mm -> stack call"; exit 1; }
echo "$out" | grep -q "$sc.c (sched) calls mm_planted of $mm.c (mm)" ||
	{ echo "$out"; echo "FAIL: wrong report for the sched -> mm call"; exit 1; }
[ "$(echo "$out" | grep -c ' calls ')" = 2 ] || { echo "$out"; echo "FAIL: more than the planted calls"; exit 1; }
# the same objects with the calls going down pass
printf 'void mm_planted(void) {}\n' >"$tmp/clean/$mm.c"
printf 'void mm_planted(void);\nvoid stack_planted(void) { mm_planted(); }\n' >"$tmp/clean/$st.c"
printf 'void sched_planted(void) {}\n' >"$tmp/clean/$sc.c"
for f in "$mm.c" "$st.c" "$sc.c"; do
	"$cc" -c "$tmp/clean/$f" -o "$o/$f.o" || exit 1
done
python3 "$src/scripts/check-layers" "$tmp/clean" --objects "$tmp/b" ||
	{ echo "FAIL: calls going down refused"; exit 1; }
echo ok
