#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stage 5: check the series patch by patch, in the tree scripts/apply.sh
# made (branch "series").
#
#   round-trip   re-exporting the applied series with format-patch gives
#                patches/ byte for byte (modulo "From <sha>" lines and the
#                git version line; default base only)
#   quiltimport  git quiltimport of patches/ + series gives the same tree
#   maintainers-fragment  MAINTAINERS.fragment is what the series adds to
#                MAINTAINERS (scripts/check-maintainers.py)
#   for each patch k:
#     checkpatch   scripts/checkpatch.pl --strict: no ERROR (warnings and
#                  checks are listed; the cover letter must justify them)
#     sparse-w1    C=2 W=1 on the kernel .c files the patch touches: no
#                  warning that the same files did not have before it (W=1
#                  only, and one skip for sparse, where kbuild finds sparse
#                  too old for the tree: Debian 12's 0.6.4 and 7.3)
#     prefix       patches 1..k build and pass their selftests in the guest
#                  (k < N; the tip is the main guest run of scripts/test.sh)
# Each prefix is built once, incrementally, in the same object directory;
# the last one leaves the tip built. A prefix whose kernel image and
# modules are byte for byte those of the prefix before it (a patch that
# only touches selftests or documentation) boots with only the test
# programs that changed: the others passed on that same kernel already.
# Prefix boots run the selftests' race-hunting loops and random sequences
# at PREFIX_STRESS_PERCENT (20) of their length (PERF_STRESS_PERCENT,
# perf_util.h); the tip's run, in scripts/test.sh, runs them in full.
# A check that does not apply (W=1 on a patch without kernel C files, a
# prefix that changes nothing the guest runs) is a comment, not a result.
#
# CHECKS=series (make test) runs round-trip, quiltimport,
# maintainers-fragment and checkpatch; CHECKS=prefixes (make prefixes)
# runs sparse-w1 and prefix, which build every prefix; CHECKS=all (the
# default) runs both.
#
# Results: one TAP line a check, $LOGS/checks-summary "passed failed skipped".
#
# Dependencies: perl (checkpatch), sparse, git.

. "$(dirname "$0")/lib.sh"

need_pkgs sparse:sparse perl:perl
. "$BUILD/base.env"

mapfile -t patches < <(series_patches)
N=${#patches[@]}
tip=$(git -C "$SRC" rev-parse series)
[ "$(git -C "$SRC" rev-list --count base..series)" = "$N" ] ||
	die check "$SRC" "branch series does not hold the $N patches of series"

scope=${CHECKS:-all}
case $scope in
series|prefixes|all) ;;
*) die check CHECKS "'$scope' is not series, prefixes or all" ;;
esac
want_series=1 want_prefixes=1
[ "$scope" = prefixes ] && want_series=0
[ "$scope" = series ] && want_prefixes=0

echo "TAP version 13"

if [ $want_series = 1 ]; then
# --- round trip through format-patch
stage_begin check-roundtrip
if [ -n "${KERNEL_SRC:-}" ]; then
	echo "# round-trip: not applicable (KERNEL_SRC: base-commit differs from patches/)"
else
	rt=$BUILD/roundtrip
	rm -rf "$rt"
	postings_config "$SRC" series
	"$TOP/scripts/export-series.sh" "$SRC" series "$rt"
	if diff -u <(cd "$TOP/patches" && find . -type f | LC_ALL=C sort) \
		   <(cd "$rt" && find . -type f | LC_ALL=C sort) >"$LOGS/roundtrip.diff" &&
	   diff -u <(cd "$TOP/patches" && python3 "$TOP/scripts/cover.py" normalize */*.patch) \
		   <(cd "$rt" && python3 "$TOP/scripts/cover.py" normalize */*.patch) \
		   >>"$LOGS/roundtrip.diff"; then
		tap_check pass round-trip
	else
		sed 's/^/#   /' "$LOGS/roundtrip.diff" | head -n 30
		tap_check fail round-trip "re-export differs from patches/, see $LOGS/roundtrip.diff"
	fi
fi
stage_end check-roundtrip

# --- git quiltimport gives the same tree
stage_begin check-quiltimport
qt=$BUILD/quilt
base_worktree "$qt"
if pipeline_git -C "$qt" quiltimport --patches "$TOP/patches" --series "$TOP/series" \
		>"$LOGS/quiltimport.log" 2>&1 &&
   [ "$(git -C "$qt" rev-parse HEAD^{tree})" = "$(git -C "$SRC" rev-parse series^{tree})" ]; then
	tap_check pass quiltimport
else
	tap_check fail quiltimport "tree differs from git am's, see $LOGS/quiltimport.log"
fi
stage_end check-quiltimport

# --- MAINTAINERS.fragment says what the series adds to MAINTAINERS
if python3 "$TOP/scripts/check-maintainers.py" "$TOP/MAINTAINERS.fragment" "$SRC" base; then
	tap_check pass maintainers-fragment
else
	tap_check fail maintainers-fragment "MAINTAINERS.fragment differs from the series' MAINTAINERS lines"
fi
fi

# Warnings of C=2 W=1 builds (W=1 only where sparse cannot check the tree)
# of the given .c files in the tree as it is now, without line numbers (so
# that moved code does not count as new).
if sparse_usable "$SRC"; then
	CHECKS=(C=2 W=1) CHECKNAME=sparse-w1
else
	CHECKS=(W=1) CHECKNAME=w1
	echo "# sparse: not run: $sparse_why_not"
fi
warnings() {
	local objs=() f
	for f in "$@"; do
		[ -f "$SRC/$f" ] && objs+=("${f%.c}.o")
	done
	[ ${#objs[@]} -eq 0 ] && return 0
	make -C "$SRC" O="$OBJ" -j"$JOBS" "${CHECKS[@]}" "${objs[@]}" 2>&1 |
		norm_warnings || true
}

# What the guest of a prefix runs, one "sha256  path" line a file: the
# kernel image and modules, and the installed selftests.
guest_kernel_sums() {
	(cd "$OBJ" && sha256sum "$KIMAGE_PATH")
	(cd "$OUT" && find modroot -name '*.ko' -print0 | LC_ALL=C sort -z |
		xargs -0r sha256sum)
}
guest_test_sums() {
	(cd "$STOBJ/install" && find . -type f -print0 | LC_ALL=C sort -z |
		xargs -0r sha256sum)
}

# --- each patch
prev_cfiles=
: >"$LOGS/prefix-0-kernel.sums"
: >"$LOGS/prefix-0-tests.sums"
if [ $want_prefixes = 1 ]; then
	stage_begin check-prefixes
	git -C "$SRC" checkout -q -f --detach base
else
	stage_begin check-checkpatch
fi
for k in $(seq 1 "$N"); do
	p=${patches[k - 1]}
	commit=$(git -C "$SRC" rev-parse "series~$((N - k))")

	# checkpatch
	if [ $want_series = 1 ]; then
		(cd "$SRC" && perl scripts/checkpatch.pl --strict --no-signoff \
			"$TOP/patches/$p") >"$LOGS/checkpatch-$k.log" 2>&1 || true
		e=$(grep -c '^ERROR:' "$LOGS/checkpatch-$k.log" || true)
		w=$(grep -cE '^(WARNING|CHECK):' "$LOGS/checkpatch-$k.log" || true)
		grep -q '^Signed-off-by: ' "$TOP/patches/$p" || e=$((e + 1))
		if [ "$e" = 0 ]; then
			tap_check pass "checkpatch $p" "$w warnings/checks"
		else
			grep -E '^(ERROR|WARNING|CHECK):' "$LOGS/checkpatch-$k.log" |
				sed 's/^/#   /'
			tap_check fail "checkpatch $p" "$e errors, see $LOGS/checkpatch-$k.log"
		fi
		grep -E '^(WARNING|CHECK):' "$LOGS/checkpatch-$k.log" | sed 's/^/#   /' || true
	fi
	[ $want_prefixes = 1 ] || continue

	# sparse and W=1 on the touched kernel C files, before and after
	mapfile -t cfiles < <(git -C "$SRC" diff --name-only "$commit~1" "$commit" -- '*.c' |
			      grep -vE '^(tools|scripts|samples|Documentation)/' || true)
	# The tree before patch k is the tree after patch k - 1: when that
	# patch touched the same files, its "after" warnings are these.
	if [ ${#cfiles[@]} -eq 0 ]; then
		:
	elif [ "${cfiles[*]}" = "$prev_cfiles" ]; then
		cp "$LOGS/warnings-$((k - 1))-after.log" "$LOGS/warnings-$k-before.log"
	else
		warnings "${cfiles[@]}" >"$LOGS/warnings-$k-before.log"
	fi
	prev_cfiles=
	git -C "$SRC" checkout -q -f --detach "$commit"

	# build (once: the last one leaves the tip built)
	doc_only=0
	[ -n "$(git -C "$SRC" diff --name-only "$commit~1" "$commit" -- \
		':!Documentation' ':!MAINTAINERS')" ] || doc_only=1
	built=1
	if [ $doc_only = 0 ] &&
	   ! PREFIX_CHECK=1 "$TOP/scripts/build.sh" >"$LOGS/prefix-$k-build.log" 2>&1; then
		built=0
		tail -n 5 "$LOGS/prefix-$k-build.log" | sed 's/^/#   /'
		tap_check fail "prefix $k builds" "see $LOGS/prefix-$k-build.log"
	fi

	if [ ${#cfiles[@]} -eq 0 ]; then
		echo "# $CHECKNAME $p: not applicable (no kernel C file touched)"
	else
		warnings "${cfiles[@]}" >"$LOGS/warnings-$k-after.log"
		tap_check_new "$CHECKNAME $p" "$LOGS/warnings-$k-before.log" \
			"$LOGS/warnings-$k-after.log" "new warnings in ${cfiles[*]}"
		prev_cfiles="${cfiles[*]}"
	fi

	# boot the prefix (the tip is the main guest run of scripts/test.sh)
	[ "$k" = "$N" ] || [ $built = 0 ] && continue
	if [ $doc_only = 1 ]; then
		cp "$LOGS/prefix-$((k - 1))-kernel.sums" "$LOGS/prefix-$k-kernel.sums"
		cp "$LOGS/prefix-$((k - 1))-tests.sums" "$LOGS/prefix-$k-tests.sums"
		echo "# prefix $k: not applicable (documentation only)"
		continue
	fi
	guest_kernel_sums >"$LOGS/prefix-$k-kernel.sums"
	guest_test_sums >"$LOGS/prefix-$k-tests.sums"
	only=()
	if cmp -s "$LOGS/prefix-$((k - 1))-kernel.sums" "$LOGS/prefix-$k-kernel.sums"; then
		# Same kernel: the programs that are new or changed.
		mapfile -t only < <(comm -13 <(sort "$LOGS/prefix-$((k - 1))-tests.sums") \
					<(sort "$LOGS/prefix-$k-tests.sums") |
				    sed -n 's|^[0-9a-f]*  \./\([^/]*\)/\([^/]*\)$|\1:\2|p' |
				    grep -Fxf <(sed 's/#.*//' "$STOBJ/install/kselftest-list.txt") || true)
		if [ ${#only[@]} -eq 0 ]; then
			echo "# prefix $k: not applicable (same kernel and test programs as prefix $((k - 1)))"
			continue
		fi
	fi
	if ST_TESTS="${only[*]}" PERF_STRESS_PERCENT=${PREFIX_STRESS_PERCENT:-20} \
	   "$TOP/scripts/boot.sh" "prefix-$k" >"$LOGS/prefix-$k-boot.log" 2>&1; then
		tap_check pass "prefix $k" "$(tail -n 1 "$LOGS/prefix-$k-boot.log" | sed 's/^# //')"
	else
		grep -E '^not ok' "$LOGS/prefix-$k-boot.log" | sed 's/^/#   /'
		tap_check fail "prefix $k" "$(tail -n 1 "$LOGS/prefix-$k-boot.log" | sed 's/^# //')"
	fi
done
# A failed build or documentation-only last patch leaves an older build:
# rebuild the tip then.
if [ $want_prefixes = 1 ]; then
	git -C "$SRC" checkout -q -f --detach "$tip"
	if [ $built = 0 ] || [ $doc_only = 1 ]; then
		"$TOP/scripts/build.sh" >"$LOGS/restore-build.log" 2>&1 ||
			tap_check fail "tip builds" "see $LOGS/restore-build.log"
	fi
	stage_end check-prefixes
else
	stage_end check-checkpatch
fi

echo "1..$tap_n"
echo "$tap_pass $tap_fail $tap_skip" >"$LOGS/checks-summary"
echo "# series checks: $tap_pass passed, $tap_fail failed, $tap_skip skipped"
[ "$tap_fail" = 0 ]
