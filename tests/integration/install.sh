#!/usr/bin/env bash
# The installed tree works on its own (issue 28): `cmake --install` into a
# temporary prefix, then, from an empty directory, the installed binary
# finds its data beside itself (PREFIX/share/mobisim), runs every scenario
# `list scenarios` names by that name (their sample traces are installed;
# run.max_events keeps each short), `validate --fast` finds the validation
# files, the man page, bash completion, pkg-config file and figure scripts
# are installed and work (figures --quick from the install), and a plugin
# builds with `pkg-config --cflags`.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
build=$(cd "$(dirname "$bin")" && pwd)
p=$tmp/prefix

cmake --install "$build" --prefix "$p" >"$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log"; echo "FAIL: cmake --install"; exit 1; }
m=$p/bin/mobisim
mkdir "$tmp/work"
cd "$tmp/work" || exit 1

# the data directory is the installed one, not the source tree
"$m" --help | tr '\n' ' ' | grep -q "bundled data: $p/share/mobisim" ||
	say "--help does not name the installed data directory: $("$m" --help | tail -3)"
"$m" --help | tr '\n' ' ' | grep -q 'man -l docs/mobisim.1' || say "--help does not say man -l docs/mobisim.1"

# every scenario, by the name `list scenarios` prints
names=$("$m" list scenarios)
[ "$(wc -w <<<"$names")" -ge 20 ] || say "list scenarios: '$names'"
for n in $names; do
	"$m" run "$n" --quiet --set run.max_events=300000 --out "$tmp/$n.json" 2>"$tmp/err" ||
		say "run $n: $(head -3 "$tmp/err")"
	grep -q "\"scenario\": \"$p/share/mobisim/configs/scenarios/$n.yaml\"" "$tmp/$n.json" ||
		say "run $n did not use the installed scenario"
done
"$m" compare launch-demo --policies "baseline;boost" --set run.max_events=100000 --quiet >/dev/null 2>&1 ||
	say "compare by name"
out=$("$m" run no-such-scenario 2>&1)
[ $? -eq 2 ] && grep -q "list scenarios" <<<"$out" || say "a wrong name: $out"

# validation files from the data directory
"$m" validate --fast -j 2 >"$tmp/val.out" 2>&1 || say "validate --fast: $(tail -5 "$tmp/val.out")"
grep -q "predictions within tolerance" "$tmp/val.out" || say "validate --fast printed no table"

# man page, completion, pkg-config, figure scripts
[ -f "$p/share/man/man1/mobisim.1" ] || say "man page not installed"
comp=$p/share/bash-completion/completions/mobisim
if [ -f "$comp" ]; then
	got=$(PATH=$p/bin:$PATH bash -c '. "$1"; COMP_WORDS=(mobisim run launch-d); COMP_CWORD=2; _mobisim; echo "${COMPREPLY[*]}"
		COMP_WORDS=(mobisim li); COMP_CWORD=1; _mobisim; echo "${COMPREPLY[*]}"
		COMP_WORDS=(mobisim list sc); COMP_CWORD=2; _mobisim; echo "${COMPREPLY[*]}"' _ "$comp")
	[ "$got" = $'launch-demo\nlist\nschedulers scenarios' ] || say "completion gave: $got"
else
	say "bash completion not installed"
fi
pc=$p/share/pkgconfig/mobisim.pc
if [ -f "$pc" ] && command -v pkg-config >/dev/null; then
	cflags=$(PKG_CONFIG_PATH=$p/share/pkgconfig pkg-config --cflags mobisim) || say "pkg-config --cflags"
	grep -q -- "-I$p/include/mobisim" <<<"$cflags" || say "pkg-config cflags: $cflags"
	# shellcheck disable=SC2086
	${CC:-cc} -shared -fPIC -Wall -Werror $cflags "$src/examples/plugin/noop_counter.c" -o "$tmp/nc.so" ||
		say "plugin does not build with pkg-config --cflags mobisim"
	"$m" list policies --plugin "$tmp/nc.so" | grep -q '^example-noop-counter' || say "plugin not listed"
else
	say "mobisim.pc not installed (or no pkg-config)"
fi
[ -x "$p/share/mobisim/scripts/figures" ] && [ -f "$p/share/mobisim/scripts/fig01.gp" ] &&
	[ -f "$p/share/mobisim/scripts/lib/figdata.py" ] || say "figure scripts not installed"
"$p/share/mobisim/scripts/figures" --help >/dev/null || say "installed figures --help"
# the installed figure pipeline: its default binary, data and notes, output
# under the current directory (the install tree is not written)
if command -v gnuplot >/dev/null && command -v python3 >/dev/null &&
	gnuplot -e 'set terminal' 2>&1 | grep -q pdfcairo; then
	before=$(find "$p" | sort | md5sum)
	"$p/share/mobisim/scripts/figures" --quick --out fig -j 2 >"$tmp/fig.log" 2>&1 ||
		say "installed figures --quick: $(tail -5 "$tmp/fig.log")"
	[ -s fig/fast-launch.png ] && [ -s fig/reproduction.md ] || say "installed figures wrote no figure or notes in ./fig"
	[ "$(find "$p" | sort | md5sum)" = "$before" ] || say "installed figures wrote into the install tree"
else
	echo "note: gnuplot (with pdfcairo) or python3 missing; installed figures --quick skipped"
fi

exit $fail
