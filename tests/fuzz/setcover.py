#!/usr/bin/env python3
"""Greedy set cover of a corpus by edges (tests/fuzz/minimise.sh).

  setcover.py PER_DIR FIXED_DIR   prints the inputs to keep, one path a line

PER_DIR holds, for each input N, name.N (its path) and ctl.N, the control
file of `fuzz_NAME -merge=1 -use_counters=0 -merge_control_file=ctl.N EMPTY
DIR_WITH_ONLY_THAT_INPUT`: a fresh process per input, so its COV line lists
every edge the input reaches (libFuzzer writes only edges new to the process,
which is why one merge over the whole corpus cannot be used). The inputs
directly in FIXED_DIR (the named inputs the broken-input tests read) are
kept; then, while an edge is not covered, the input covering most of the
uncovered ones is taken (ties: the smaller input, then the earlier one).
libFuzzer's own merge takes inputs in size order and keeps each that adds an
edge at its turn, so it keeps a small input whose edges a larger one taken
later also reaches; the greedy cover does not."""
import os
import sys


def main(argv):
    per, fixed = argv[1], os.path.abspath(argv[2])
    n = len([f for f in os.listdir(per) if f.startswith("name.")])
    names, size, edges = {}, {}, {}
    for i in range(n):
        with open(os.path.join(per, f"name.{i}")) as f:
            names[i] = f.read().strip()
        size[i] = os.path.getsize(names[i])
        edges[i] = set()
        path = os.path.join(per, f"ctl.{i}")
        if not os.path.exists(path):
            continue  # the input crashed or timed out alone: never kept for coverage
        with open(path) as f:
            lines = f.read().split("\n")
        for line in lines[2 + int(lines[0]):]:
            p = line.split()
            if p and p[0] == "COV":
                edges[i] |= set(map(int, p[2:]))
    keep = [i for i in range(n) if os.path.dirname(os.path.abspath(names[i])) == fixed]
    covered = set().union(*(edges[i] for i in keep))
    want = set().union(*edges.values())
    left = {i: edges[i] - covered for i in range(n) if i not in keep}
    while covered != want:
        best = max(left, key=lambda i: (len(left[i]), -size[i], -i))
        gain = left.pop(best)
        keep.append(best)
        covered |= gain
        for i in left:
            left[i] -= gain
    for i in keep:
        print(names[i])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
