#!/usr/bin/env bash
# The README's demo excerpt is what scripts/demo prints: every line of the
# excerpt (the block after "scripts/demo ... prints"; "..." stands for lines
# left out) must appear in the demo's output, in order. Runs the demo with
# the built binary (MOBISIM_BIN), so nothing is rebuilt.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
MOBISIM_BIN="$bin" MOBISIM_DEMO_OUT="$tmp" bash "$src/scripts/demo" >"$tmp/demo.txt" 2>"$tmp/demo.err" ||
	{ cat "$tmp/demo.err"; echo "FAIL: scripts/demo"; exit 1; }
python3 - "$src/README.md" "$tmp/demo.txt" <<'PY'
import sys
readme = open(sys.argv[1]).read().split("\n")
demo = open(sys.argv[2]).read().split("\n")
# the first fenced block that starts with the demo's first heading
start = next(i for i, l in enumerate(readme) if l.startswith("== 1. "))
end = next(i for i in range(start, len(readme)) if readme[i].startswith("```"))
excerpt = [l for l in readme[start:end] if l.strip() and l.strip() != "..."]
j = 0
for l in excerpt:
    while j < len(demo) and demo[j].rstrip() != l.rstrip():
        j += 1
    if j == len(demo):
        print("FAIL: README demo line not in scripts/demo output (or out of order):")
        print("  " + l)
        sys.exit(1)
    j += 1
print(f"ok: {len(excerpt)} README lines found in the demo output")
PY
