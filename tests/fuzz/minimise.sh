#!/bin/bash
# Minimise a reader's committed corpus to the inputs that keep its edge
# coverage: the top level of tests/fuzz/corpus/NAME (named inputs the
# broken-input tests read) stays as it is; gen/ is rebuilt as a greedy set
# cover of every input's edges (-use_counters=0: hit counts are not kept, so
# the "ft" features drop while "cov" edges stay), each input's edges read
# from a libFuzzer merge of that input alone (setcover.py). If `fuzz_NAME -runs=0` still
# counts fewer edges than on the old corpus (the merge's view of an edge
# and -runs=0's differ), the dropped inputs are bisected for one that
# restores the count, until none is missing. Prints edges (cov) and
# features (ft) before and after (tests/fuzz/campaign.md).
# Usage: tests/fuzz/minimise.sh BUILD_FUZZ_DIR NAME...   (run under the heavy lock)
#   BUILD_FUZZ_DIR: CC=clang cmake -S . -B build-fuzz -DMOBISIM_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
set -u
build=$(cd "$1" && pwd)
shift
src=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# known, not ours: a 16-byte leak inside libtracecmd / libtraceevent (campaign.sh)
printf 'leak:libtracecmd.so\nleak:libtraceevent.so\n' > "$work/lsan.supp"
export ASAN_OPTIONS="allocator_may_return_null=1" LSAN_OPTIONS="suppressions=$work/lsan.supp"
opts="-rss_limit_mb=2048 -timeout=10"
cov() { "$build/fuzz_$name" $opts -runs=0 "$@" 2>&1 | grep -o 'DONE.*' | grep -o 'cov: [0-9]* ft: [0-9]*'; }
edges() { cov "$@" | cut -d' ' -f2; }
# edges of the set plus the inputs listed in file $1
edges_with() {
	rm -rf "$w/try"
	mkdir "$w/try"
	xargs -a "$1" -d '\n' cp -t "$w/try/"
	edges "$w/set" "$w/try"
}
for name in "$@"; do
	c=$src/corpus/$name
	[ -d "$c/gen" ] || { echo "$name: no gen/, nothing to minimise"; continue; }
	w=$work/$name
	mkdir -p "$w/set"
	before="$(cov "$c") files $(find "$c" -type f | wc -l)"
	# every edge of each input, one fresh process per input (setcover.py says why)
	mkdir -p "$w/per"
	i=0
	find "$c" -type f | sort > "$w/all"
	while IFS= read -r f; do
		# the merge writes into its first directory: a fresh empty one each time
		rm -rf "$w/one" "$w/empty" && mkdir "$w/one" "$w/empty" && cp "$f" "$w/one/"
		"$build/fuzz_$name" $opts -merge=1 -use_counters=0 -merge_control_file="$w/per/ctl.$i" \
			"$w/empty" "$w/one" > /dev/null 2>&1
		printf '%s\n' "$f" > "$w/per/name.$i"
		i=$((i + 1))
	done < "$w/all"
	python3 "$src/setcover.py" "$w/per" "$c" | xargs -d '\n' cp -t "$w/set/"
	want=$(edges "$c")
	while [ "$(edges "$w/set")" -lt "$want" ]; do
		# dropped inputs (by content), bisected for one that restores the count
		(cd "$w/set" && sha1sum -- * | cut -d' ' -f1 | sort) > "$w/kept"
		find "$c" -type f -exec sha1sum {} + | sort | join -v1 - "$w/kept" |
			cut -d' ' -f2- > "$w/cand"
		[ "$(edges_with "$w/cand")" -ge "$want" ] || { echo "$name: edges lost for good"; break; }
		while [ "$(wc -l < "$w/cand")" -gt 1 ]; do
			half=$(( $(wc -l < "$w/cand") / 2 ))
			head -n "$half" "$w/cand" > "$w/h1"
			tail -n +"$((half + 1))" "$w/cand" > "$w/h2"
			if [ "$(edges_with "$w/h1")" -gt "$(edges "$w/set")" ]; then
				mv "$w/h1" "$w/cand"
			else
				mv "$w/h2" "$w/cand"
			fi
		done
		[ "$(edges_with "$w/cand")" -gt "$(edges "$w/set")" ] ||
			{ echo "$name: no single input restores the lost edges"; break; }
		cp "$(cat "$w/cand")" "$w/set/"
	done
	rm -rf "$c/gen"
	mkdir "$c/gen"
	for f in "$w/set"/*; do
		[ -e "$c/$(basename "$f")" ] || cp "$f" "$c/gen/"
	done
	echo "$name: before $before; after $(cov "$c") files $(find "$c" -type f | wc -l)"
done
