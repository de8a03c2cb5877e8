#!/usr/bin/env bash
# Set-up installs what each script needs and no more (issue 28): with every
# package reported missing and apt-get stubbed, `mobisim_ensure_packages demo`
# (scripts/demo) asks for the build packages only, no Slurm/munge and no
# trace-cmd development packages; `check` (scripts/check) asks for
# everything the tests use; each script asks for its own set; README lists
# both sets exactly as scripts/lib/deps.sh has them.
set -u
bin=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }

mkdir "$tmp/bin"
# nothing installed; apt-get records what it was asked for
printf '#!/bin/sh\nexit 1\n' >"$tmp/bin/dpkg-query"
printf '#!/bin/sh\n[ "$1" = install ] && shift 4 && echo "$@" >>"%s/asked"\nexit 0\n' "$tmp" >"$tmp/bin/apt-get"
printf '#!/bin/sh\nexec "$@"\n' >"$tmp/bin/sudo"
chmod +x "$tmp/bin/"*
asked() { # asked SET: the packages mobisim_ensure_packages SET installs
	rm -f "$tmp/asked"
	PATH=$tmp/bin:$PATH bash -c '. "$1/scripts/lib/deps.sh"; mobisim_ensure_packages "$2"' _ "$src" "$1" 2>/dev/null
	tr ' ' '\n' <"$tmp/asked" | sort
}
demo=$(asked demo)
check=$(asked check)
for p in slurm-wlm munge libtracecmd-dev libtracefs-dev libtraceevent-dev trace-cmd libcmocka-dev parallel sqlite3; do
	grep -qx "$p" <<<"$demo" && say "the demo installs $p"
	grep -qx "$p" <<<"$check" || say "check does not install $p"
done
for p in cmake gcc pkg-config libyaml-dev libjansson-dev libgsl-dev zlib1g-dev liblzma-dev libzstd-dev libsqlite3-dev; do
	grep -qx "$p" <<<"$demo" || say "the demo does not install $p (CMakeLists.txt requires it)"
done
# every package the demo needs is one check installs too
[ -z "$(comm -23 <(echo "$demo") <(echo "$check"))" ] || say "demo packages missing from check"

# each script asks for its own set
grep -q 'mobisim_ensure_packages demo$' "$src/scripts/demo" || say "scripts/demo does not ask for the demo set"
grep -q '^mobisim_ensure_packages check$' "$src/scripts/check" || say "scripts/check does not ask for the check set"

# README lists both, as deps.sh has them
readme() { sed -n "s/.*<!-- deps:$1 -->\(.*\)<!-- \/deps -->.*/\1/p" "$src/README.md" | tr ' ' '\n' | sort; }
[ "$(readme demo)" = "$demo" ] || say "README's demo packages differ from deps.sh: $(diff <(readme demo) <(echo "$demo") | tr '\n' ' ')"
extra=$(comm -13 <(echo "$demo") <(echo "$check") | grep -vx -e gnuplot-nox -e python3)
[ "$(readme check-extra)" = "$extra" ] || say "README's check packages differ from deps.sh: $(diff <(readme check-extra) <(echo "$extra") | tr '\n' ' ')"
exit $fail
