#!/usr/bin/env bash
# The manual covers the program: every command `mobisim --help` lists has a
# SYNOPSIS entry in docs/mobisim.1, and every long option any command's
# --help prints is described there (as \-\-NAME). The program's own option
# tables (getopt_long, printed by --help) are the one list both are held to.
set -u
bin=$1 src=$2
man="$src/docs/mobisim.1"
fail=0
cmds=$("$bin" --help | sed -n 's/^  mobisim \([a-z][a-z]*\).*/\1/p' | sort -u)
[ -n "$cmds" ] || { echo "FAIL: no commands in mobisim --help"; exit 1; }
for c in $cmds; do
	grep -q "^\.B mobisim $c\b" "$man" || { echo "FAIL: command '$c' has no SYNOPSIS entry in docs/mobisim.1"; fail=1; }
	helps=$("$bin" "$c" --help 2>&1)
	case $c in
	trace) helps="$helps$("$bin" trace stat --help 2>&1)$("$bin" trace convert --help 2>&1)" ;;
	device) helps="$helps$("$bin" device curve --help 2>&1)" ;;
	esac
	for o in $(printf '%s\n' "$helps" | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
		[ "$o" = --help ] || [ "$o" = --version ] && continue
		pat=$(printf '%s' "$o" | sed 's/-/\\\\-/g')
		grep -q -- "$pat" "$man" || { echo "FAIL: '$c $o' is not in docs/mobisim.1"; fail=1; }
	done
done
[ $fail = 0 ] && echo "ok: $(echo $cmds | wc -w) commands"
exit $fail
