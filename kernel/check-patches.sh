#!/bin/bash
# Check the kernel patch series without building a kernel.
#
#   kernel/check-patches.sh
#
# Extracts from Debian's linux-source-7.3 tarball (kernel/fetch-source.sh)
# only the files the patches touch, plus checkpatch.pl and its data files,
# into a temporary directory.  Then, for kernel/patches/series in order and
# kernel/lab/series on top, each patch must:
#   - name no author and carry no Signed-off-by: both are left for whoever
#     submits the series (kernel/README.md),
#   - apply cleanly in order (git apply --check, then git apply),
#   - pass scripts/checkpatch.pl --strict --no-tree with 0 errors, 0 warnings
#     and 0 checks (its report is printed as "# " lines otherwise); it runs
#     on a copy given a throwaway author and Signed-off-by, which
#     checkpatch requires.
#
# The cover letter, kernel/patches/0000-cover-letter.patch, must name no
# author either and be "[PATCH 0/N]" for the N patches of the series, each
# of them "[PATCH I/N]" in series order.
#
# stdout: TAP ("ok N - ...", "not ok N - ...", then "1..N").
# exit:   0 if every test passed, 1 otherwise or on a runtime failure.
#
# Environment: PTSCOPE_KEEP=1 keeps the temporary directory.
# shellcheck disable=SC2317 # cleanup is run from a trap
set -euo pipefail

prog=${0##*/}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
die() { echo "$prog: error: $*" >&2; exit 1; }
note() { echo "$prog: $*" >&2; }
[ $# -eq 0 ] || { echo "usage: $prog" >&2; exit 2; }

tarball=${PTSCOPE_CACHE:-/var/cache/ptscope}/src/linux-source-7.3.tar.xz
[ -f "$tarball" ] || die "$tarball not found: run make deps-kernel"
for tool in git perl tar xz; do
	command -v "$tool" >/dev/null || die "'$tool' not found: run make deps-kernel"
done

# series_files DIR: the patch files DIR/series lists, in order (quilt format:
# blank lines and '#' comments skipped, options after the name ignored).
series_files() {
	local dir=$1 name _
	[ -f "$dir/series" ] || die "$dir/series not found"
	while read -r name _; do
		case $name in '' | '#'*) continue ;; esac
		[ -f "$dir/$name" ] || die "$dir/series lists '$name', which does not exist"
		echo "$dir/$name"
	done <"$dir/series"
}

mapfile -t patches < <(series_files "$here/patches"; series_files "$here/lab")
[ ${#patches[@]} -gt 0 ] || die "the series files list no patches"

work=$(mktemp -d "${TMPDIR:-/tmp}/ptscope-check-patches.XXXXXX")
finish() {
	if [ "${PTSCOPE_KEEP:-0}" = 1 ]; then note "work directory kept: $work"; else rm -rf "$work"; fi
}
trap finish EXIT
# git must not look for a repository above the work directory: inside one,
# git apply takes paths relative to its top and skips the others silently.
export GIT_CEILING_DIRECTORIES=$work
unset GIT_DIR GIT_WORK_TREE

# Files the patches need from the tarball: the old side of every diff, except
# files an earlier patch creates (they are not in the tarball).
mapfile -t wanted < <(awk '
	/^diff --git a\// { old = substr($3, 3); if (!(old in created)) need[old] = 1 }
	/^new file mode / { created[old] = 1; delete need[old] }
	END { for (f in need) print f }
	' "${patches[@]}" | sort)
wanted+=(scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch)

top=$(basename "$tarball" .tar.xz)
mkdir "$work/src" "$work/cp" "$work/signed"
tar -xJf "$tarball" -C "$work/src" --strip-components=1 "${wanted[@]/#/$top/}" ||
	die "extracting ${wanted[*]} from $tarball failed"
# checkpatch runs from a directory without .git (it would look up commit ids)
# and reads only its own data files next to it.
cp "$work/src"/scripts/{checkpatch.pl,spelling.txt,const_structs.checkpatch} "$work/cp/"

# shellcheck source=../tests/tap.sh
. "$here/../tests/tap.sh"

# no_author FILE NAME: the TAP line for a file that names no author
no_author() {
	local ok=0

	if grep -Eq '^(From|Signed-off-by): ' "$1"; then
		ok=1
		grep -E '^(From|Signed-off-by): ' "$1" | sed 's/^/# /'
	fi
	tap_status "$ok" "$2 names no author and no Signed-off-by"
}

# the cover letter and the numbering of the series
cover=$here/patches/0000-cover-letter.patch
mapfile -t series < <(series_files "$here/patches")
if [ -f "$cover" ]; then
	no_author "$cover" kernel/patches/0000-cover-letter.patch
	ok=0
	want="[PATCH 0/${#series[@]}]"
	grep -qF "Subject: $want" "$cover" || { ok=1; echo "# the cover letter's subject lacks $want"; }
	for i in "${!series[@]}"; do
		want="[PATCH $((i + 1))/${#series[@]}]"
		grep -qF "Subject: $want" "${series[$i]}" ||
			{ ok=1; echo "# ${series[$i]##*/}: its subject lacks $want"; }
	done
	tap_status "$ok" "the cover letter and the ${#series[@]} patches of the series are numbered 0..${#series[@]}"
else
	not_ok "kernel/patches/0000-cover-letter.patch exists"
fi

for p in "${patches[@]}"; do
	name=kernel/${p#"$here"/}
	ok=0
	if ! out=$(cd "$work/src" && git apply --check "$p" 2>&1 && git apply "$p" 2>&1); then
		ok=1
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
	tap_status "$ok" "$name applies cleanly in order"

	no_author "$p" "$name"

	# the throwaway identity checkpatch needs, on a copy only
	signed=$work/signed/${p##*/}
	awk '/^Date: / && !from { print "From: Checkpatch Run <checkpatch@invalid>"; from = 1 }
	     /^---$/ && !sob { print "Signed-off-by: Checkpatch Run <checkpatch@invalid>"; sob = 1 }
	     { print }' "$p" >"$signed"
	ok=0
	out=$(cd "$work/cp" && HOME=$work perl ./checkpatch.pl --strict --no-tree --no-color "$signed" 2>&1) || true
	# a here-string, not printf | grep -q: grep -q exits at the first
	# match, and under pipefail the writer's SIGPIPE turned a clean
	# checkpatch run red about one time in eight
	if ! grep -q '^total: 0 errors, 0 warnings, 0 checks,' <<<"$out"; then
		ok=1
		printf '%s\n' "$out" | sed 's/^/# /'
	fi
	tap_status "$ok" "$name: checkpatch --strict: 0 errors, 0 warnings, 0 checks"

done
tap_finish
