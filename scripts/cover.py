#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cover letter <-> branch description, for the format-patch round trip.

    cover.py to-description COVER   print the branch description that makes
                                    `git format-patch --cover-letter
                                    --cover-from-description=subject`
                                    write COVER again
    cover.py normalize FILE...      print FILEs without what legitimately
                                    differs between two exports of the same
                                    series: the "From <sha>" lines (commit
                                    shas depend on the committer) and the
                                    format-patch version line
"""

import re
import sys


def to_description(path):
    with open(path) as f:
        text = f.read()
    head, _, body = text.partition("\n\n")
    subject = ""
    lines = head.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Subject: "):
            subject = line[len("Subject: "):]
            # folded header lines
            for cont in lines[i + 1:]:
                if not cont.startswith((" ", "\t")):
                    break
                subject += cont[0:] if cont.startswith(" ") else " " + cont.strip()
            break
    subject = re.sub(r"^\[[^]]*\]\s*", "", subject)
    # The body ends where format-patch's shortlog ("Name (N):") begins.
    out = []
    for line in body.splitlines():
        if re.match(r"^\S.* \(\d+\):$", line):
            break
        out.append(line)
    while out and not out[-1].strip():
        out.pop()
    sys.stdout.write(subject + "\n\n" + "\n".join(out) + "\n")


def normalize(paths):
    for p in paths:
        with open(p) as f:
            lines = f.read().splitlines()
        for i, line in enumerate(lines):
            if re.match(r"^From [0-9a-f]{40} ", line):
                line = "From <sha>"
            elif i > 0 and lines[i - 1] == "-- " and i >= len(lines) - 2:
                line = "<git version>"
            print(line)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "to-description":
        to_description(sys.argv[2])
    elif len(sys.argv) >= 3 and sys.argv[1] == "normalize":
        normalize(sys.argv[2:])
    else:
        sys.exit(__doc__)
