#!/usr/bin/env bash
# A mistyped key names the fix (issue 28): the nearest key read at that path
# by edit distance ("did you mean"), else the keys read there; still one line
# with file:line:column and exit 2.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

expect() { # expect PATTERN -- command...: exit 2, one line matching PATTERN
	local pat=$1
	shift 2
	local out rc
	out=$("$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -ne 2 ]; then
		echo "FAIL: '$*' exited $rc, wanted 2: $out"
		fail=1
	elif ! grep -Eq -- "$pat" <<<"$out"; then
		echo "FAIL: '$*': message '$out' does not match /$pat/"
		fail=1
	elif [ "$(wc -l <<<"$out")" -ne 1 ]; then
		echo "FAIL: '$*': wanted one line, got: $out"
		fail=1
	fi
}

cfq="$src/configs/scenarios/cfq-vs-noop.yaml"
# a transposition is one edit
expect "cfq\.slice_idel_ms: unknown key \(did you mean 'slice_idle_ms'\?\)" -- \
	"$bin" run "$cfq" --set cfq.slice_idel_ms=5
# in a file: file:line:col, then the hint
printf 'device:\n  model: ideal\n  mean_usx: 100\nsource:\n  requests: 10\n' >"$tmp/typo.yaml"
expect "typo.yaml:3:3: device\.mean_usx: unknown key \(did you mean 'mean_us'\?\)" -- \
	"$bin" run "$tmp/typo.yaml"
# top level
expect "worklaod: unknown key \(did you mean 'workload'\?\)" -- \
	"$bin" run "$cfq" --set worklaod.trace=x
# nothing near: the keys that are read there
expect "device\.zzzzzzzz: unknown key \(keys read here: .*mean_us.*model" -- \
	"$bin" run "$src/configs/scenarios/mm1.yaml" --set device.zzzzzzzz=1

# names from a registry or the data directory: the nearest one
ld=launch-demo
expect "scheduler: unknown scheduler 'cfg' \(did you mean 'cfq'\?\)" -- "$bin" run $ld --set scheduler=cfg
expect "policies: unknown policy 'expd' \(did you mean 'expc'\?\)" -- "$bin" run $ld --set policies=expd
expect "--policies: unknown policy 'boots' in set 'boots' \(did you mean 'boost'\?\)" -- \
	"$bin" compare $ld --policies "baseline;boots"
expect "workload\.type: unknown workload type 'synthetc' \(did you mean 'synthetic'\?\)" -- \
	"$bin" run $ld --set workload.type=synthetc
expect "device: unknown device preset 'ufs21x' \(did you mean 'ufs21'\?\) \(see .mobisim list devices." -- \
	"$bin" run $ld --set device=ufs21x
# an enum value: a prefix counts
expect "cfq\.kernel_variant: 'samsung' is not one of: .* \(did you mean 'samsung-exynos7420'\?\)" -- \
	"$bin" run $ld --set cfq.kernel_variant=samsung
# a scheduler's tunables under scheduler: the section to use
expect "scheduler is a scalar .*, not a map \(cfq's tunables are its own top-level section: --set cfq\.slice_idle_ms=5\)" -- \
	"$bin" run $ld --set scheduler.cfq.slice_idle_ms=5

# a mistyped command or list category
out=$("$bin" comapre 2>&1 >/dev/null)
[ $? -eq 2 ] && grep -q "^mobisim: unknown command 'comapre' (did you mean 'compare'?)" <<<"$out" ||
	{ echo "FAIL: unknown command: $out"; fail=1; }
expect "list: unknown category 'scenarioz' \(did you mean 'scenarios'\?\)" -- "$bin" list scenarioz

exit $fail
