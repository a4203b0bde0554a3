#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Make an editable kernel git tree of the series: $BUILD/edit, branch
# "edit" = the base (tag "base") + one commit per patch, committed with
# your git identity. Each posting (directory of patches/) is recorded in
# the tree's git config: the subject of its first commit, and its cover
# letter (posting.NAME.first and posting.NAME.description, see
# postings_config in lib.sh; git config -e edits them). Edit with git
# commit --amend, rebase -i, new commits...; then run
# scripts/export-series.sh.
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
postings_config "$EDIT" edit
log "edit tree: $EDIT (branch edit, $(git -C "$EDIT" rev-list --count base..edit) commits on base)"
