#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make an editable kernel git tree of the series: $BUILD/edit, branch
# "edit" = the base (tag "base") + one commit per patch, committed with
# your git identity, the cover letter kept as the branch description
# (git branch --edit-description). Edit with git commit --amend, rebase -i,
# new commits...; then run scripts/export-series.sh.
#
# An existing $BUILD/edit is kept (it may hold unexported work); FORCE=1
# recreates it from patches/.
#
# Note: Debian's base .gitignore ignores everything at the top level, so
# new files need `git add -f`.

. "$(dirname "$0")/lib.sh"

EDIT=$BUILD/edit
[ -f "$BUILD/base.env" ] || "$TOP/scripts/get-base.sh"
. "$BUILD/base.env"

if [ -d "$EDIT/.git" ] && [ "${FORCE:-0}" != 1 ]; then
	log "$EDIT exists (branch edit); FORCE=1 recreates it from patches/"
	exit 0
fi
rm -rf "$EDIT"
git clone -q -n "$BASE_REPO" "$EDIT"
git -C "$EDIT" checkout -q -b edit "$BASE_REF"
git -C "$EDIT" tag -f base "$BASE_REF" >/dev/null
while read -r p; do
	git -C "$EDIT" am -q "$TOP/patches/$p" ||
		die edit "patches/$p" "does not apply; resolve in $EDIT (git am --continue) or fix the patch"
done < <(series_patches)
if [ -f "$TOP/patches/0000-cover-letter.patch" ]; then
	python3 "$TOP/scripts/cover.py" to-description \
		"$TOP/patches/0000-cover-letter.patch" >"$BUILD/description"
	git -C "$EDIT" config branch.edit.description "$(cat "$BUILD/description")"
fi
log "edit tree: $EDIT (branch edit, $(git -C "$EDIT" rev-list --count base..edit) commits on base)"
