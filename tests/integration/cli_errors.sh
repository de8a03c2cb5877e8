#!/usr/bin/env bash
# The CLI's contract on bad input (docs/architecture.md §5): bad YAML, unknown
# keys, bad units and out-of-range values each give one line naming
# file:line:column and exit 2; nothing is written to --out; --help and
# --version exit 0; an unknown command exits 2.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

expect() { # expect STATUS PATTERN -- command...
	local want=$1 pat=$2
	shift 3
	local out rc
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		echo "FAIL: '$*' exited $rc, wanted $want: $out"
		fail=1
	elif [ -n "$pat" ] && ! grep -Eq -- "$pat" <<<"$out"; then
		echo "FAIL: '$*': message '$out' does not match /$pat/"
		fail=1
	elif [ "$want" -eq 2 ] && [ "$pat" != "usage" ] && [ "$(wc -l <<<"$out")" -ne 1 ]; then
		echo "FAIL: '$*': wanted one line, got: $out"
		fail=1
	fi
}

base="$src/configs/scenarios/mm1.yaml"
printf 'device:\n  model: ideal\n  mean_us: [1, 2\nsource: {}\n' >"$tmp/syntax.yaml"
printf 'device:\n  model: ideal\n  mean_usx: 100\nsource:\n  requests: 10\n' >"$tmp/unknown.yaml"
printf 'device:\n  model: ideal\n  mean_us: 100parsecs\nsource:\n  requests: 10\n' >"$tmp/unit.yaml"
printf 'device:\n  model: ideal\n  servers: 0\nsource:\n  requests: 10\n' >"$tmp/range.yaml"
printf 'device:\n  model: warp-drive\nsource:\n  requests: 10\n' >"$tmp/model.yaml"

expect 2 "syntax.yaml:[0-9]+:[0-9]+:" -- "$bin" run "$tmp/syntax.yaml" --out "$tmp/r1.json"
expect 2 "unknown.yaml:3:[0-9]+: .*device\.mean_usx.*unknown key" -- "$bin" run "$tmp/unknown.yaml" --out "$tmp/r2.json"
expect 2 "unit.yaml:3:[0-9]+: .*device\.mean_us" -- "$bin" run "$tmp/unit.yaml" --out "$tmp/r3.json"
expect 2 "range.yaml:3:[0-9]+: .*device\.servers.*range" -- "$bin" run "$tmp/range.yaml" --out "$tmp/r4.json"
expect 2 "model.yaml:2:[0-9]+:" -- "$bin" run "$tmp/model.yaml"
expect 2 "--set" -- "$bin" run "$base" --set source.no_such_key=1
expect 2 "" -- "$bin" run "$base" --set "novalue"
expect 2 "" -- "$bin" run "$tmp/does-not-exist.yaml"
# Usage errors print the usage (several lines), still exit 2.
expect 2 "usage" -- "$bin" frobnicate
expect 2 "usage" -- "$bin" run
expect 0 "" -- "$bin" --help
expect 0 "" -- "$bin" --version
for f in r1 r2 r3 r4; do
	if ls "$tmp" | grep -q "$f"; then
		echo "FAIL: a failed run left $f behind"
		fail=1
	fi
done

# A good run writes a complete result with the contract's keys.
"$bin" run "$base" --set source.requests=2000 --quiet --out "$tmp/ok.json" || fail=1
for key in '"mobisim"' '"engine"' '"classes"' '"regions"' '"device"' '"pagecache"' '"waits"' '"lat_ns"' '"p999"'; do
	grep -q "$key" "$tmp/ok.json" || { echo "FAIL: result lacks $key"; fail=1; }
done
exit $fail
