#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""MAINTAINERS.fragment against the series.

    check-maintainers.py FRAGMENT TREE BASE

FRAGMENT (the repo's MAINTAINERS.fragment) must say exactly what the
series adds to TREE's MAINTAINERS (git diff BASE..HEAD): every line the
series adds is in the fragment under the section it is in, and every line
of the fragment is in that section of TREE's MAINTAINERS. Prints what
differs; exits 1 if anything does.
"""

import subprocess
import sys


def sections(lines):
    """{header: set of entry lines} of a MAINTAINERS-like text."""
    out, cur = {}, None
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip() or line.startswith("#"):
            cur = None
            continue
        if len(line) > 2 and line[1] == ":" and line[2] in "\t ":
            if cur is not None:
                out[cur].add(line)
            continue
        cur = line
        out.setdefault(cur, set())
    return out


def main():
    frag_path, tree, base = sys.argv[1:4]
    with open(frag_path) as f:
        frag = sections(f)
    with open(tree + "/MAINTAINERS", errors="replace") as f:
        lines = f.readlines()
    tip = sections(lines)

    # The lines the series adds, with the section each one is in.
    diff = subprocess.run(["git", "-C", tree, "diff", "-U0", base, "HEAD",
                           "--", "MAINTAINERS"], capture_output=True,
                          text=True, check=True).stdout
    added, hunks = set(), []
    for line in diff.splitlines():
        if line.startswith("@@"):
            start = int(line.split("+")[1].split(",")[0].split()[0])
            hunks.append(start)
            n = start
        elif line.startswith("+") and not line.startswith("+++"):
            added.add((n, line[1:]))
            n += 1
    bad = []
    for n, text in sorted(added):
        if not text.strip():
            continue
        hdr = None
        for k in range(n - 1, -1, -1):
            s = lines[k].rstrip("\n")
            if not s.strip():
                break
            if not (len(s) > 2 and s[1] == ":" and s[2] in "\t "):
                hdr = s
                break
        if text == hdr:
            if hdr not in frag:
                bad.append("the series adds section %r, the fragment lacks it" % hdr)
        elif hdr is None or text not in frag.get(hdr, set()):
            bad.append("the series adds %r to %r, the fragment lacks it" % (text, hdr))
    for hdr, entries in frag.items():
        if hdr not in tip:
            bad.append("the fragment's section %r is not in MAINTAINERS" % hdr)
            continue
        for e in sorted(entries - tip[hdr]):
            bad.append("the fragment's %r is not in %r of MAINTAINERS" % (e, hdr))
    for b in bad:
        print("#   " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
