#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Judge one guest run from what the guest printed.

    results.py [--label L] [--qemu-rc N] [--lane ARCH] [--patches K]
               [--skips FILE] LOGDIR

LOGDIR holds console.log (kernel console) and tests.log (the harness, see
selftests/run-tests.sh). Prints one TAP line per test case (KUnit cases and
kselftest harness cases), the kernel reports found on the console, and a
final "N passed, N failed, N skipped" line; writes the counts to
LOGDIR/summary. Exits 1 if anything failed, the guest did not finish, or
the console shows a kernel report (WARNING, BUG, lockdep, KASAN, panic...).

A skip must be pinned: FILE (selftests/skips) names each skip a guest run
may report, for which lane (x86_64, arm64) and, optionally, for which
prefixes of the series (K, the number of patches applied); any other skip
is a failure.
"""

import argparse
import fnmatch
import os
import re
import sys

# Kernel reports that fail a run wherever they appear on the console.
SPLAT = re.compile(
    r"WARNING: |BUG: |Kernel panic|Oops[:\s]|general protection fault|"
    r"KASAN|UBSAN|kmemleak: \d+ new suspected|unreferenced object|"
    r"possible circular locking|inconsistent lock state|"
    r"possible recursive locking|suspicious RCU usage|"
    r"INFO: task .* blocked|rcu_.*self-detected stall|"
    r"detected stall|Call [Tt]race:|Internal error: |Unable to handle kernel")

RESULT = re.compile(r"^(not ok|ok)\s+\d+\s+(.*?)\s*(?:#\s*(.*))?$")
SECONDS = re.compile(r"^# # seconds: (\S+) ([0-9.]+)$")


def classify(ok, directive):
    """pass, fail or skip for a TAP result and its directive."""
    d = (directive or "").strip().upper()
    if d.startswith("SKIP"):
        return "skip"
    if d.startswith("XFAIL"):
        return "pass"
    if d.startswith("TIMEOUT"):
        return "fail"
    return "pass" if ok else "fail"


def parse_kunit(lines, suite):
    """Test cases of one KUnit suite's KTAP results file."""
    cases, top = [], None
    for line in lines:
        indent = len(line) - len(line.lstrip(" "))
        m = RESULT.match(line.strip())
        if not m:
            continue
        res = (classify(m.group(1) == "ok", m.group(3)), m.group(2),
               m.group(3) or "")
        if indent == 4:
            cases.append(res)
        elif indent == 0:
            top = res
    if not cases and top:
        cases.append(top)
    return [("kunit:%s.%s" % (suite, n), r, why) for r, n, why in cases]


def parse_kselftest(lines):
    """Test cases of a run_kselftest.sh run: harness cases of each binary."""
    out, nested = [], []
    for line in lines:
        if line.startswith("# "):
            m = RESULT.match(line[2:].strip())
            if m:
                nested.append((classify(m.group(1) == "ok", m.group(3)),
                               m.group(2), m.group(3) or ""))
            continue
        m = RESULT.match(line.strip())
        if not m:
            continue
        # "ok 1 selftests: perf_events: sigtrap_threads"
        name = m.group(2).replace("selftests: ", "").replace(": ", ":")
        res = classify(m.group(1) == "ok", m.group(3))
        coll = name.split(":")[0]
        for r, n, why in nested:
            out.append(("%s:%s" % (coll, n), r, why))
        # A binary that failed (or timed out) beyond its own cases, e.g.
        # crashed after the last one or printed no TAP at all.
        if res == "fail" and not any(r == "fail" for r, _, _ in nested):
            out.append((name, "fail", m.group(3) or "binary exited non-zero"))
        elif not nested:
            out.append((name, res, m.group(3) or ""))
        nested = []
    return out


def read_pins(path):
    """(lane, first, last, pattern) of each line of the pinned-skip list."""
    pins = []
    for n, line in enumerate(read(path), 1):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        if len(line) != 2:
            sys.exit("%s:%d: want 'lane[:first-last] pattern'" % (path, n))
        lane, _, rng = line[0].partition(":")
        first, _, last = rng.partition("-")
        pins.append((lane, int(first or 0), int(last or first or 10**6),
                     line[1]))
    return pins


def pinned(pins, lane, k, name):
    return any(pl == lane and lo <= k <= hi and fnmatch.fnmatchcase(name, pat)
               for pl, lo, hi, pat in pins)


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read().replace("\r", "").splitlines()
    except FileNotFoundError:
        return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--label", default="tip")
    ap.add_argument("--qemu-rc", type=int, default=0)
    ap.add_argument("--lane", default="x86_64")
    ap.add_argument("--patches", type=int, default=10**5)
    ap.add_argument("--skips")
    ap.add_argument("logdir")
    a = ap.parse_args()

    tests = read(os.path.join(a.logdir, "tests.log"))
    console = read(os.path.join(a.logdir, "console.log"))
    cases, bench, problems, seconds = [], [], [], []

    i = 0
    while i < len(tests):
        line = tests[i]
        kind = line.split()[1] if line.startswith("@@@ ") else ""
        if kind in ("KUNIT", "KSELFTEST", "BENCH", "KMEMLEAK"):
            end = "@@@ %s-END" % kind
            j = i + 1
            while j < len(tests) and tests[j] != end:
                j += 1
            block = tests[i + 1:j]
            if kind == "KUNIT":
                cases += parse_kunit(block, line.split()[2])
            elif kind == "BENCH":
                bench += block
            elif kind == "KMEMLEAK":
                leaks = [b for b in block if "unreferenced object" in b]
                if leaks:
                    problems.append("kmemleak: %d leak(s) reported:\n%s" % (
                        len(leaks), "\n".join("#   " + b for b in block[:40])))
            else:
                found = parse_kselftest(block)
                # selftests/timeout: how long each program ran.
                seconds += [m.groups() for m in map(SECONDS.match, block) if m]
                if not found:
                    problems.append("guest: the kselftest runner ran no test")
                cases += found
            if j == len(tests):
                problems.append("guest: %s did not finish" % line[4:])
            i = j
        i += 1

    if "@@@ END" not in tests:
        why = "timeout" if a.qemu_rc == 124 else "panic, crash or hang"
        problems.append("guest: run did not finish (%s); see %s/console.log"
                        % (why, a.logdir))
    if not cases and not bench:
        problems.append("guest: no test results at all")

    splats = []
    for n, line in enumerate(console):
        if SPLAT.search(line):
            splats.append(n)
    if splats:
        problems.append("kernel: %d report line(s) on the console" %
                        len(splats))

    if a.skips:
        pins = read_pins(a.skips)
        cases = [(n, "fail", "unpinned skip (%s): %s" % (
                      os.path.basename(a.skips), re.sub(r"^SKIP\s*", "", why)))
                 if r == "skip" and not pinned(pins, a.lane, a.patches, n)
                 else (n, r, why) for n, r, why in cases]

    counts = {"pass": 0, "fail": 0, "skip": 0}
    print("TAP version 13")
    print("1..%d" % (len(cases) + len(problems)))
    n = 0
    for name, res, why in cases:
        n += 1
        counts[res] += 1
        if res == "skip":
            print("ok %d %s # SKIP %s" % (n, name,
                                          re.sub(r"^SKIP\s*", "", why)))
        else:
            print("%s %d %s%s" % ("ok" if res == "pass" else "not ok", n,
                                  name, " # " + why if why else ""))
    for p in problems:
        n += 1
        counts["fail"] += 1
        print("not ok %d %s" % (n, p))

    if splats:
        print("# kernel reports in %s/console.log:" % a.logdir)
        shown = set()
        for s in splats[:5]:
            for k in range(max(0, s - 2), min(len(console), s + 25)):
                if k not in shown:
                    shown.add(k)
                    print("#   " + console[k])
    for line in bench:
        print("# bench: " + line)
    for prog, secs in sorted(seconds, key=lambda x: -float(x[1])):
        print("# seconds: %s %s" % (prog, secs))

    with open(os.path.join(a.logdir, "summary"), "w") as f:
        f.write("%d %d %d\n" % (counts["pass"], counts["fail"],
                                counts["skip"]))
    print("# %s: %d passed, %d failed, %d skipped" %
          (a.label, counts["pass"], counts["fail"], counts["skip"]))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
