# Bash completion for mobisim: commands, each command's options, `list`
# categories, bundled scenario and device preset names (asked of the
# mobisim being completed, so an install completes its own data) and files.
# Installed as PREFIX/share/bash-completion/completions/mobisim; from the
# source tree: `. scripts/completion.bash`.

_mobisim_names() { # _mobisim_names PROG scenarios|devices: bundled names
	local prog=$1 what=$2
	if [ "$what" = devices ]; then
		"$prog" list devices 2>/dev/null | sed -n '/^presets/,$ s/^  \([^ ]*\).*/\1/p'
	else
		"$prog" list scenarios 2>/dev/null | grep -v '^('
	fi
}

_mobisim() {
	local cur prev cmd prog=${COMP_WORDS[0]}
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	local commands="run compare list device sweep validate sensitivity calibrate latencytop workload trace"
	if [ "$COMP_CWORD" -eq 1 ]; then
		COMPREPLY=($(compgen -W "$commands --help --version" -- "$cur"))
		return
	fi
	cmd=${COMP_WORDS[1]}
	# option arguments: files, or nothing to offer
	case $prev in
	--out | -o | --plot | --timeline | --trace-out | --db | --requests-csv | --doc | --tsv | --collect | --work | --plugin)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--set | -s | --seed | --repeat | --jobs | -j | --point | --metric | --params | --factors | \
	--scale | --top | --qd | --requests | --pattern | --columns | --window | --disksim-time | \
	--policies | --chunk | --scheduler | --fg | --from | --until | --comm | --pid | --app | --max-gap)
		return ;;
	--gap)
		COMPREPLY=($(compgen -W "compress cut" -- "$cur"))
		return ;;
	--by)
		COMPREPLY=($(compgen -W "pid comm uid" -- "$cur"))
		return ;;
	--to)
		COMPREPLY=($(compgen -W "blkparse blktrace mqsim" -- "$cur"))
		return ;;
	--format)
		COMPREPLY=($(compgen -W "blktrace blkparse disksim ftrace csv fio perfetto tracecmd" -- "$cur"))
		return ;;
	--timeline-format)
		COMPREPLY=($(compgen -W "json proto" -- "$cur"))
		return ;;
	esac
	local opts=""
	case $cmd in
	run) opts="--set --seed --out --trace-out --timeline --timeline-format --db --requests-csv --plugin --quiet --help" ;;
	compare) opts="--policies --set --seed --repeat --out --plot --db --requests-csv --plugin --quiet --help" ;;
	sweep) opts="--jobs --out --resume --count --list --point --force --collect --plot --db --requests-csv --quiet --help" ;;
	validate) opts="--jobs --fast --strict --doc --tsv --work --resume --quiet --help" ;;
	sensitivity) opts="--metric --params --factors --scale --set --repeat --jobs --out --top --list --quiet --help" ;;
	calibrate) opts="-o --strict --help" ;;
	latencytop) opts="--policies --set --class --help" ;;
	workload) opts="-o --out --chunk --by --device --scheduler --seed --no-run --check --format --columns --strict --from --until --comm --pid --app --max-gap --gap --set --help" ;;
	trace) opts="--format --columns --strict --window --disksim-time --to -o --out --fg --from --until --comm --pid --app --max-gap --gap --help" ;;
	device) opts="--qd --requests --pattern --seed --set --help" ;;
	list) opts="--plugin --help" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return
	fi
	case $cmd in
	list)
		[ "$COMP_CWORD" -eq 2 ] &&
			COMPREPLY=($(compgen -W "policies schedulers devices scenarios platforms workloads completions" -- "$cur"))
		return ;;
	workload)
		if [ "$COMP_CWORD" -eq 2 ]; then
			COMPREPLY=($(compgen -W "fit" -- "$cur"))
			return
		fi ;;
	trace)
		if [ "$COMP_CWORD" -eq 2 ]; then
			COMPREPLY=($(compgen -W "stat convert" -- "$cur"))
			return
		fi ;;
	device)
		if [ "$COMP_CWORD" -eq 2 ]; then
			COMPREPLY=($(compgen -W "curve" -- "$cur"))
		else
			COMPREPLY=($(compgen -W "$(_mobisim_names "$prog" devices)" -- "$cur") $(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur"))
		fi
		return ;;
	run | compare | sensitivity)
		COMPREPLY=($(compgen -W "$(_mobisim_names "$prog" scenarios)" -- "$cur") $(compgen -f -X '!*.yaml' -- "$cur") $(compgen -d -- "$cur"))
		return ;;
	esac
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -o filenames -o bashdefault -F _mobisim mobisim
