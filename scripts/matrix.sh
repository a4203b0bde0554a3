#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The build matrix (make matrix): every prefix of the series built the way
# the 0-day bot would, in the directories the series touches, for
#
#   x86_64-allno   x86_64 allnoconfig (perf is selected by x86: it stays)
#   i386           i386 tinyconfig + kernel-config
#   arm64          arm64 tinyconfig + kernel-config, Debian's cross gcc
#   arm64-noperf   arm64 allnoconfig: perf compiled out
#
# each with W=1 and sparse (C=1), plus `make coccicheck MODE=report` on
# kernel/events/ for the x86_64 project config. A warning or report that the
# same check on the base does not give fails it (line numbers ignored).
# Directory builds (make kernel/events/ ...) keep it affordable: each
# configuration is prepared once, then each prefix that touches kernel files
# rebuilds the directories (the others cannot change the result).
#
#   scripts/matrix.sh [CONFIG...]     default: all of the above
#
# Dependencies: gcc-aarch64-linux-gnu, sparse, coccinelle (installed on
# demand).

. "$(dirname "$0")/lib.sh"

need_pkgs sparse:sparse aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu spatch:coccinelle

configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(x86_64-allno i386 arm64 arm64-noperf)
mapfile -t patches < <(series_patches)
N=${#patches[@]}
MTX=$BUILD/matrix
MSRC=$BUILD/matrix-tree		# a worktree of the series, moved freely
mkdir -p "$MTX"
base_worktree "$MSRC"

# The directories to build: kernel/events/ and whatever kernel directory a
# patch of the series touches (selftests and docs are built elsewhere).
mapfile -t dirs < <(git -C "$SRC" diff --name-only base series -- '*.c' '*.h' |
		    grep -vE '^(tools|Documentation|scripts|samples)/' |
		    xargs -r -n1 dirname | sed 's|^include.*|kernel/events|' |
		    sort -u)
[[ " ${dirs[*]} " == *" kernel/events "* ]] || dirs+=(kernel/events)

# make_args CONFIG: the arch and compiler of a configuration.
make_args() {
	case $1 in
	x86_64-*)	echo "ARCH=x86_64" ;;
	i386)		echo "ARCH=i386" ;;
	arm64*)		echo "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-" ;;
	*)		die matrix "$1" "unknown configuration (x86_64-allno i386 arm64 arm64-noperf)" ;;
	esac
}

# configure CONFIG: (re)make its .config from the tree as it is now.
configure() {
	local c=$1 o=$MTX/$1 args
	read -ra args <<<"$(make_args "$c")"

	mkdir -p "$o"
	case $c in
	*-allno|*-noperf)
		make -C "$MSRC" O="$o" "${args[@]}" allnoconfig ;;
	*)
		make -C "$MSRC" O="$o" "${args[@]}" tinyconfig &&
		grep -v '^CONFIG_64BIT=' "$TOP/kernel-config" >"$o/fragment" &&
		{ [ "$c" != i386 ] || echo "CONFIG_64BIT=n" >>"$o/fragment"; } &&
		"$MSRC/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$o/fragment" &&
		make -C "$MSRC" O="$o" "${args[@]}" olddefconfig ;;
	esac >"$o/config.log" 2>&1 || die matrix "$o/config.log" "configuring $c failed"
	make -C "$MSRC" O="$o" "${args[@]}" -j"$JOBS" prepare >"$o/prepare.log" 2>&1 ||
		die matrix "$o/prepare.log" "make prepare for $c failed"
}

# build CONFIG: warnings of W=1 C=1 builds of the directories, normalised.
# allnoconfig builds all of kernel/: with perf compiled out (arm64),
# kernel/events/ is not part of the build, what uses perf is.
build() {
	local c=$1 o=$MTX/$1 args d todo=("${dirs[@]}")
	read -ra args <<<"$(make_args "$c")"

	case $c in *-allno|*-noperf) todo=(kernel) ;; esac
	for d in "${todo[@]}"; do
		[ -d "$MSRC/$d" ] || continue
		make -C "$MSRC" O="$o" "${args[@]}" -j"$JOBS" "${CHECKS[@]}" "$d/" 2>&1 ||
			echo "error: make $d/ failed"
	done | norm_warnings
}

tip=$(git -C "$SRC" rev-parse series)
echo "TAP version 13"
if sparse_usable "$SRC"; then
	CHECKS=(W=1 C=1)
else
	CHECKS=(W=1)
	echo "# sparse: not run: $sparse_why_not"
fi
for c in "${configs[@]}"; do
	make_args "$c" >/dev/null
	stage_begin "matrix-$c"
	git -C "$MSRC" checkout -q -f --detach base
	configure "$c"
	build "$c" >"$MTX/$c-base.warn"
	for k in $(seq 1 "$N"); do
		commit=$(git -C "$SRC" rev-parse "series~$((N - k))")
		# Only kernel sources, Kconfig and Makefiles can change a build.
		if [ -z "$(git -C "$SRC" diff --name-only "$commit~1" "$commit" -- . \
				':!tools' ':!Documentation' ':!MAINTAINERS')" ]; then
			echo "# $c prefix $k: not applicable (touches no kernel file)"
			continue
		fi
		git -C "$MSRC" checkout -q -f --detach "$commit"
		configure "$c"
		build "$c" >"$MTX/$c-$k.warn"
		tap_check_new "$c prefix $k" "$MTX/$c-base.warn" "$MTX/$c-$k.warn" \
			"new warnings, see $MTX/$c-$k.warn"
	done
	stage_end "matrix-$c"
done

stage_begin matrix-coccicheck
mkdir -p "$MTX/cocci"
# cocci REV NAME: coccicheck's reports on kernel/events/ at REV, without
# line numbers; a coccicheck that fails is a failed check, not "no report".
cocci() {
	git -C "$MSRC" checkout -q -f --detach "$1"
	if ! make -C "$MSRC" O="$MTX/cocci" coccicheck MODE=report M=kernel/events/ \
			>"$MTX/cocci-$2.log" 2>&1; then
		tap_check fail "coccicheck kernel/events ($2)" "coccicheck failed, see $MTX/cocci-$2.log"
		return 1
	fi
	{ grep -E '^[^ ]+\.[ch]:' "$MTX/cocci-$2.log" || true; } |
		sed -E 's/:[0-9]+:[0-9-]+:/:/; s/line [0-9]+/line N/g' | sort >"$MTX/cocci-$2.txt"
}
if cocci base base && cocci "$tip" tip; then
	tap_check_new "coccicheck kernel/events" "$MTX/cocci-base.txt" "$MTX/cocci-tip.txt" \
		"new reports, see $MTX/cocci-tip.txt"
fi
stage_end matrix-coccicheck

git -C "$MSRC" checkout -q -f --detach "$tip"
echo "1..$tap_n"
echo "$tap_pass passed, $tap_fail failed"
[ "$tap_fail" = 0 ]
