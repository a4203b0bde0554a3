#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the edit branch (scripts/edit-series.sh) back to patches/, one
# directory a posting (patches/1-kselftest/, ...), each written by
#   git format-patch --cover-letter --cover-from-description=subject --base=base
# over the posting's range, so that it holds what git send-email sends
# (its cover letter and its patches, numbered from 1) and, in base-commit:
# and prerequisite-patch-id: lines, the postings it applies on. The tree's
# git config says where each posting starts and what its cover letter
# says (postings_config in lib.sh). series is rewritten: patch names in
# branch order; each "#" banner or comment line stays in front of the patch
# it stood in front of (matched by subject, ignoring the number),
# commented-out patches stay as they are.
#
#   scripts/export-series.sh [GIT_DIR_OR_TREE [BRANCH [OUTDIR]]]
# (the arguments are for the round-trip check in scripts/check-series.sh).

. "$(dirname "$0")/lib.sh"

tree=${1:-$BUILD/edit}
branch=${2:-edit}
outdir=${3:-$TOP/patches}

git -C "$tree" rev-parse -q --verify base >/dev/null ||
	die export "$tree" "no tag base: make the tree with scripts/edit-series.sh"
mapfile -t names < <(git -C "$tree" config --name-only --get-regexp '^posting\..*\.first$' |
		     sed -e 's/^posting\.//' -e 's/\.first$//' | LC_ALL=C sort)
[ ${#names[@]} -gt 0 ] ||
	die export "$tree" "no posting.NAME.first in its git config: make the tree with scripts/edit-series.sh"
mapfile -t shas < <(git -C "$tree" rev-list --reverse "base..$branch")
mapfile -t subjects < <(git -C "$tree" log --reverse --format=%s "base..$branch")

starts=()
for name in "${names[@]}"; do
	first=$(git -C "$tree" config "posting.$name.first")
	s=
	for i in "${!subjects[@]}"; do
		[ "${subjects[i]}" = "$first" ] && { s=$i; break; }
	done
	[ -n "$s" ] || die export "posting $name" "no commit has the subject of its first patch: $first"
	starts+=("$s")
done
[ "${starts[0]}" = 0 ] || die export "posting ${names[0]}" "does not start at the first commit"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for k in "${!names[@]}"; do
	name=${names[k]} s=${starts[k]}
	if [ $((k + 1)) -lt ${#names[@]} ]; then
		e=$((starts[k + 1] - 1))
	else
		e=$((${#shas[@]} - 1))
	fi
	[ "$e" -ge "$s" ] || die export "posting $name" "is empty, or starts after the next one"
	# format-patch takes the cover letter from the description of the
	# branch it formats. Deterministic output, so that a re-export
	# reproduces patches/: the cover letter is dated like the posting's
	# last patch (format-patch would use the current time), and index
	# lines use a fixed abbreviation length (the default depends on how
	# many objects the repository has).
	git -C "$tree" branch -f "posting/$name" "${shas[e]}"
	git -C "$tree" config "branch.posting/$name.description" \
		"$(git -C "$tree" config "posting.$name.description")"
	GIT_COMMITTER_DATE=$(git -C "$tree" log -1 --format=%aD "${shas[e]}") \
	git -C "$tree" -c core.abbrev=12 format-patch -q --cover-letter \
		--cover-from-description=subject --base=base -o "$tmp/$name" \
		"${shas[s]}^..posting/$name"
	git -C "$tree" branch -q -D "posting/$name"
done
if [ "$outdir" != "$TOP/patches" ]; then
	mkdir -p "$outdir"
	cp -r "$tmp"/. "$outdir"
	exit 0
fi

rm -rf "$TOP"/patches/*
cp -r "$tmp"/. "$TOP/patches/"

# Rewrite series, keeping comment lines with the patch that follows them.
python3 - "$TOP/series" "$tmp" <<'PY'
import os, re, sys
series, new = sys.argv[1], sys.argv[2]
names = [d + "/" + p
         for d in sorted(os.listdir(new))
         for p in sorted(os.listdir(os.path.join(new, d)))
         if p.endswith(".patch") and not p.startswith("0000-")]
key = lambda n: re.sub(r"^\d+-", "", os.path.basename(n))
old = open(series).read().splitlines() if os.path.exists(series) else []
before, pending, tail = {}, [], []
for line in old:
    name = re.sub(r"#.*", "", line).strip()
    if name:
        before.setdefault(key(name), []).extend(pending)
        pending = []
    else:
        pending.append(line)
tail = pending
out, used = [], set()
for n in names:
    out += before.get(key(n), [])
    used.add(key(n))
    out.append(n)
# comments whose patch is gone go where they were: at the end.
for k, v in before.items():
    if k not in used:
        tail = v + tail
open(series, "w").write("\n".join(out + tail) + "\n")
PY
log "exported ${#names[@]} postings, $(find "$TOP/patches" -name '*.patch' | wc -l) files, to patches/ and rewrote series"
