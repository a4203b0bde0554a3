#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Export the edit branch (scripts/edit-series.sh) back to patches/ with
#   git format-patch --cover-letter --cover-from-description=subject --base=base
# and rewrite series: patch names in branch order; each "#" banner or
# comment line stays in front of the patch it stood in front of (matched by
# subject, ignoring the number), commented-out patches stay as they are.
#
#   scripts/export-series.sh [GIT_DIR_OR_TREE [BRANCH [OUTDIR]]]
# (the arguments are for the round-trip check in scripts/check-series.sh).

. "$(dirname "$0")/lib.sh"

tree=${1:-$BUILD/edit}
branch=${2:-edit}
outdir=${3:-$TOP/patches}

git -C "$tree" rev-parse -q --verify base >/dev/null ||
	die export "$tree" "no tag base: make the tree with scripts/edit-series.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Deterministic output, so that a re-export reproduces patches/: the
# cover letter is dated like the last patch (format-patch would use the
# current time), and index lines use a fixed abbreviation length (the
# default depends on how many objects the repository has).
GIT_COMMITTER_DATE=$(git -C "$tree" log -1 --format=%aD "$branch") \
git -C "$tree" -c core.abbrev=12 format-patch -q --cover-letter \
	--cover-from-description=subject --base=base -o "$tmp" "base..$branch"
[ "$outdir" = "$TOP/patches" ] || { mkdir -p "$outdir"; cp "$tmp"/*.patch "$outdir"; exit 0; }

rm -f "$TOP"/patches/*.patch
cp "$tmp"/*.patch "$TOP/patches/"

# Rewrite series, keeping comment lines with the patch that follows them.
python3 - "$TOP/series" "$tmp" <<'PY'
import os, re, sys
series, new = sys.argv[1], sys.argv[2]
names = sorted(p for p in os.listdir(new)
               if p.endswith(".patch") and not p.startswith("0000-"))
key = lambda n: re.sub(r"^\d+-", "", n)
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
log "exported $(ls "$TOP"/patches/*.patch | wc -l) files to patches/ and rewrote series"
