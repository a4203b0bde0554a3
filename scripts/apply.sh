#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stage 2: apply the series. $BUILD/linux becomes a clone of the base with
# every patch named in series applied by git am, one commit each, on the
# branch "series". Files the series does not touch keep their timestamps, so
# a rebuild after it is incremental.
#
# Dependencies: git.

. "$(dirname "$0")/lib.sh"

[ -f "$BUILD/base.env" ] || die apply "$BUILD/base.env" "missing: run scripts/get-base.sh first"
. "$BUILD/base.env"

stage_begin apply
if [ -d "$SRC/.git" ] &&
   [ "$(git -C "$SRC" config perf-series.base-repo || true)" = "$BASE_REPO" ]; then
	git -C "$SRC" am --abort >/dev/null 2>&1 || true
	git -C "$SRC" cat-file -e "$BASE_REF^{commit}" 2>/dev/null ||
		git -C "$SRC" fetch -q "$BASE_REPO" "$BASE_REF"
	git -C "$SRC" checkout -q -f --detach "$BASE_REF"
	git -C "$SRC" clean -q -ffdx
else
	rm -rf "$SRC"
	git clone -q -n "$BASE_REPO" "$SRC"
	git -C "$SRC" config perf-series.base-repo "$BASE_REPO"
	git -C "$SRC" checkout -q --detach "$BASE_REF"
fi
git -C "$SRC" tag -f base "$BASE_REF" >/dev/null

n=0
while read -r p; do
	[ -f "$TOP/patches/$p" ] || die apply "patches/$p" "named in series but missing"
	if ! pipeline_git -C "$SRC" am -q --committer-date-is-author-date \
			"$TOP/patches/$p" >"$LOGS/apply.log" 2>&1; then
		git -C "$SRC" am --abort >/dev/null 2>&1 || true
		grep -E '^(error|fatal|Patch failed)' "$LOGS/apply.log" >&2 || cat "$LOGS/apply.log" >&2
		die apply "patches/$p" "does not apply onto $(git -C "$SRC" describe --always HEAD)"
	fi
	n=$((n + 1))
done < <(series_patches)
git -C "$SRC" branch -q -f series HEAD
log "applied $n patches onto $BASE_REF: $SRC"
stage_end apply
