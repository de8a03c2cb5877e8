#!/usr/bin/env bash
# The manual covers the program: every command `mobisim --help` lists has a
# SYNOPSIS entry in docs/mobisim.1, and every long option any command's
# --help prints is described there (as \-\-NAME). The program's own option
# tables (getopt_long, printed by --help) are the one list both are held to.
# SYNOPSIS lists each command once, and DESCRIPTION names every scheduler and
# trace format the program has.
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
# SYNOPSIS has each command once; DESCRIPTION names every scheduler
# `list schedulers` prints and every trace reader `trace --help` names.
synopsis=$(sed -n '/^\.SH SYNOPSIS/,/^\.SH DESCRIPTION/p' "$man")
description=$(sed -n '/^\.SH DESCRIPTION/,/^\.PP/p' "$man" | tr '\n' ' ')
for c in $cmds; do
	d=$(grep "^\.B mobisim $c\b" <<<"$synopsis" | sort | uniq -d)
	[ -z "$d" ] || { echo "FAIL: SYNOPSIS lists '$d' twice"; fail=1; }
done
for s in $("$bin" list schedulers | sed -n 's/^\([a-z][a-z-]*\) .*/\1/p'); do
	grep -qiw -- "$s" <<<"$description" || { echo "FAIL: DESCRIPTION does not name scheduler $s"; fail=1; }
done
readers=$("$bin" trace --help 2>&1 | tr '\n' ' ' | tr -s ' ' | sed -n 's/.*force a reader (\([^)]*\)).*/\1/p' | tr -d ',')
[ -n "$readers" ] || { echo "FAIL: no reader list in trace --help"; fail=1; }
for r in $readers; do
	[ "$r" = tracecmd ] && r=trace-cmd
	grep -qi -- "$r" <<<"$description" || { echo "FAIL: DESCRIPTION does not name trace format $r"; fail=1; }
done
d=$(sed -n 's/^\.SH //p' "$man" | sort | uniq -d)
[ -z "$d" ] || { echo "FAIL: section(s) twice in docs/mobisim.1: $d"; fail=1; }
[ $fail = 0 ] && echo "ok: $(echo $cmds | wc -w) commands"
exit $fail
