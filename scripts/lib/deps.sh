# Sourced by scripts/demo, scripts/check, scripts/figures and scripts/bench:
# install the Debian packages a script needs when any is missing (a fresh
# Debian 12 machine needs nothing else). Needs root or sudo only when
# something is missing. Each script asks only for its own set:
#   mobisim_ensure_packages demo     build and run mobisim (scripts/demo, scripts/bench)
#   mobisim_ensure_packages figures  demo + gnuplot and python3 (scripts/figures)
#   mobisim_ensure_packages check    everything the tests use (scripts/check, CI)
#
# demo: the compiler and the libraries CMakeLists.txt requires (libyaml,
# jansson, GSL; zlib, liblzma, libzstd for compressed traces, traces/trace.c;
# libsqlite3 for --db, sim/cli/results_db.c).
MOBISIM_DEMO_DEBS="cmake gcc make pkg-config libyaml-dev libjansson-dev libgsl-dev zlib1g-dev liblzma-dev libzstd-dev libsqlite3-dev"
# figures: gnuplot draws them (pngcairo), python3 turns sweep summaries into
# their data (scripts/lib/figdata.py).
MOBISIM_FIGURES_DEBS="$MOBISIM_DEMO_DEBS gnuplot-nox python3"
# check, on top of those:
#  libcmocka-dev: the unit tests (tests/**/test_*.c are built only with it).
#  zstd xz-utils gzip: tests/integration/trace_field.sh compresses its inputs.
#  blktrace: blkparse and btt, which trace_convert.sh and trace_field.sh compare against.
#  parallel: tests/integration/sweep.sh runs a sweep through GNU parallel.
#  libtracecmd-dev, libtracefs-dev (its pkg-config needs it), libtraceevent-dev: the
#    trace.dat reader (traces/tracecmd.c; built only when found) and its tests;
#    trace-cmd: tests/integration/trace_readers.sh checks its fixture against it.
#  slurm-wlm, munge: tests/integration/slurm.sh starts a one-node cluster (~10 MB,
#    22.05 on bookworm; installing munge writes /etc/munge/munge.key).
#  sqlite3: tests/integration/results_db.sh queries what --db wrote with its CLI.
MOBISIM_CHECK_DEBS="$MOBISIM_FIGURES_DEBS libcmocka-dev zstd xz-utils gzip blktrace parallel libtracecmd-dev libtracefs-dev libtraceevent-dev trace-cmd slurm-wlm munge sqlite3"

# mobisim_ensure_packages SET [EXTRA_PACKAGE]...
mobisim_ensure_packages() {
	local set=${1:-check} missing=() p debs
	[ $# -gt 0 ] && shift
	case $set in
	demo) debs=$MOBISIM_DEMO_DEBS ;;
	figures) debs=$MOBISIM_FIGURES_DEBS ;;
	check) debs=$MOBISIM_CHECK_DEBS ;;
	*) echo "deps.sh: unknown package set '$set' (demo, figures, check)" >&2; return 2 ;;
	esac
	for p in $debs "$@"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	echo "installing: ${missing[*]}" >&2
	local sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq
	$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

mobisim_jobs() {
	nproc 2>/dev/null || echo 2
}
