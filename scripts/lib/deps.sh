# Sourced by scripts/check and scripts/demo: install the Debian packages
# mobisim needs when any is missing (a fresh Debian 12 machine needs
# nothing else). Needs root or sudo only when something is missing.
# parallel: tests/integration/sweep.sh runs a sweep through GNU parallel.
# zlib1g-dev liblzma-dev libzstd-dev: compressed traces (traces/trace.c); zstd xz-utils
# gzip: tests/integration/trace_field.sh compresses its inputs.
# libtracecmd-dev, libtracefs-dev (its pkg-config needs it), libtraceevent-dev: the trace.dat
# reader (traces/tracecmd.c); trace-cmd: tests/integration/trace_readers.sh checks its fixture.
# slurm-wlm, munge: tests/integration/slurm.sh starts a one-node cluster (~10 MB, 22.05 on bookworm)
MOBISIM_DEBS="cmake gcc make pkg-config libyaml-dev libjansson-dev libgsl-dev libcmocka-dev zlib1g-dev liblzma-dev libzstd-dev zstd xz-utils gzip gnuplot-nox blktrace python3 parallel libtracecmd-dev libtracefs-dev libtraceevent-dev trace-cmd slurm-wlm munge"

mobisim_ensure_packages() {
	local missing=() p
	for p in $MOBISIM_DEBS "$@"; do
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
