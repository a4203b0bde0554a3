#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of make bench: the base kernel against the series' kernel.

    bench-table.py [--expect FILE] [--rst] DIR

DIR holds bench-base-I.tap and bench-series-I.tap, I = 1, 2, ...: what
scripts/boot.sh printed for the I-th boot of each kernel, the two kernels
booted alternately. The benchmarks' lines in them (selftests/bench/stats.h)
read, after results.py's "# bench: " prefix:

    bench: NAME MEDIAN UNIT iqr=Q1..Q3 n=ROUNDS
    bench: NAME.ratio VALUE x aa=AA iqr=Q1..Q3 n=ROUNDS
    bench: NAME unavailable

Two tables:
  - base vs series, for each value: the median over boots of each boot's
    median on the base and on the series, the ratio series/base of the
    two, and the spread of the per-boot ratios series-I/base-I (min..max);
  - ratios within one boot (NAME.ratio), per kernel: the median over that
    kernel's boots, their spread (min..max) and the A/A control farthest
    from 1.
A ratio with a target gets a verdict: the series' ratios within a boot
in TARGETS, and series/base of the configurations without counters
(NONE). The verdict comes from an interval around the ratio, the union
of: the spread over boots; +/- the uncertainty of the
in-boot medians, 1.58 * IQR / sqrt(n) (a box plot's notch, about a 95%
interval of a median), relative, summed in quadrature for series/base;
+/- the A/A distance from 1 (within a boot: the largest |aa - 1| over the
boots; base vs series: the base's own spread over boots, max/min - 1,
what the same kernel gives from boot to boot), relative. The verdict is
"met" if the whole interval is at or below the target, "missed" if it is
all above, else "unresolved": the noise is wider than the ratio's
distance from the target (always, for series/base, with fewer than two
boots of each kernel).

--rst prints the same as reStructuredText, the tables as simple tables
(scripts/record-results.py puts it into Documentation/results/bench.rst).

Exits 1, naming them, if a series boot lacks a value that another series
boot or the base has, reports a benchmark unavailable, or (--expect, the
list of benchmark programs) printed nothing for one of the programs:
only the base kernel may lack a benchmark (it has no counter sharing, so
no share benchmark).
"""

import argparse
import glob
import math
import os
import re
import statistics
import sys

# Targets for ratios within one boot, on the series' kernel: NAME <= value.
TARGETS = {
    "share.pingpong.k4_shared.ratio": 1.05,
    "share.pingpong.hw_k8_shared.ratio": 1.05,
    "share.open_close.ratio": 1.10,
}
# Target for series/base of the workloads without counters or sharing,
# which the series must not slow down: the configurations named "none",
# and "0" (no counter) in inherit and breakpoint; and every value of
# hotpath, which runs before anything turns counter sharing on.
NONE = re.compile(r"\.(none|0)$|^hotpath\.")
NONE_TARGET = 1.01

LINE = re.compile(r"^# bench: bench: (\S+) (\S+)(?: (\S+))?(.*)$")
NOTCH = 1.58


def load(path):
    """{name: record} and the names reported unavailable, of one boot."""
    vals, unavail = {}, []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if not m:
                continue
            name, value, unit, rest = m.groups()
            if value == "unavailable":
                unavail.append(name)
                continue
            try:
                rec = {"value": float(value), "unit": unit or ""}
            except ValueError:
                continue
            for key, val in re.findall(r"(\w+)=(\S+)", rest):
                if key == "iqr" and ".." in val:
                    q1, q3 = val.split("..", 1)
                    rec["q1"], rec["q3"] = float(q1), float(q3)
                elif key in ("aa", "n"):
                    rec[key] = float(val)
            vals[name] = rec
    return vals, unavail


def boots(d, kernel):
    """{I: (values, unavailable)} of the boots of @kernel in @d."""
    out = {}
    for p in glob.glob(os.path.join(d, "bench-%s-*.tap" % kernel)):
        m = re.search(r"-(\d+)\.tap$", p)
        if m:
            out[int(m.group(1))] = load(p)
    return out


def notch(rec):
    """The relative uncertainty of a boot's median, or None."""
    if not {"q1", "q3", "n"} <= rec.keys() or not rec["value"]:
        return None
    iqr = rec["q3"] - rec["q1"]
    return NOTCH * iqr / math.sqrt(max(rec["n"], 1)) / abs(rec["value"])


def med(xs):
    return statistics.median(xs) if xs else None


def verdict(r, points, halves, target):
    """@r against @target: the interval spans @points and r +/- @halves."""
    if target is None or r is None:
        return "-"
    ends = [r] + points
    for u in halves:
        if u is not None:
            ends += [r - u, r + u]
    lo, hi = min(ends), max(ends)
    if hi <= target:
        return "met"
    if lo > target:
        return "missed"
    return "unresolved"


def num(v):
    if v is None:
        return "-"
    if abs(v) >= 10000:
        return "%.0f" % v
    return "%.2f" % v if abs(v) >= 1 else "%.4f" % v


def rng(lo, hi):
    return "-" if lo is None else "%.3f..%.3f" % (lo, hi)


def show(fmt, rows, rst):
    """Print @rows, the header first, with @fmt or as a reST simple table."""
    if not rst:
        for r in rows:
            print(fmt % tuple(r))
        return
    # No value is an empty cell: "-" alone is a bullet list in reST, and
    # punctuation alone ("%") a section title's adornment.
    rows = [["" if c == "-" else "\\" + c if re.fullmatch(r"[^\w\s]+", c)
             else c for c in r] for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    rule = " ".join("=" * w for w in widths)
    print(rule)
    for n, r in enumerate(rows):
        print(" ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
        if n == 0:
            print(rule)
    print(rule)


def ordered_names(*groups):
    seen = {}
    for g in groups:
        for vals, _ in g.values():
            for n in vals:
                seen.setdefault(n, None)
    return list(seen)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--expect", help="the benchmark programs, one a line")
    ap.add_argument("--rst", action="store_true",
                    help="reStructuredText: simple tables, notes as a list")
    ap.add_argument("dir")
    a = ap.parse_args()

    base, series = boots(a.dir, "base"), boots(a.dir, "series")
    if not series:
        sys.exit("bench-table: no bench-series-*.tap in %s" % a.dir)
    names = ordered_names(series, base)
    values = [n for n in names if not n.endswith(".ratio")]
    ratios = [n for n in names if n.endswith(".ratio")]
    nb, ns = len(base), len(series)

    print("base vs series: median over boots (base %d, series %d) of each "
          "boot's median; ratio series/base;" % (nb, ns))
    print("pairs: series-I/base-I, min..max; iqr+-: from the in-boot IQRs; "
          "aa: base max/min over boots")
    if a.rst:
        print()
    fmt = "%-34s %-9s %10s %10s %7s %13s %6s %6s %7s %s"
    rows = [("benchmark", "unit", "base", "series", "ratio", "pairs", "iqr+-",
             "aa", "target", "verdict")]
    for name in values:
        b = {i: v[name] for i, (v, _) in base.items() if name in v}
        s = {i: v[name] for i, (v, _) in series.items() if name in v}
        unit = next(iter(s.values() or b.values()))["unit"]
        mb = med([x["value"] for x in b.values()])
        ms = med([x["value"] for x in s.values()])
        r = ms / mb if mb and ms is not None else None
        pairs = [s[i]["value"] / b[i]["value"] for i in s
                 if i in b and b[i]["value"]]
        lo = min(pairs) if pairs else None
        hi = max(pairs) if pairs else None
        u_iqr = u_aa = None
        if r is not None:
            rb = [x for x in map(notch, b.values()) if x is not None]
            rs = [x for x in map(notch, s.values()) if x is not None]
            if rb and rs:
                u_iqr = r * math.hypot(med(rb), med(rs))
            bv = [x["value"] for x in b.values()]
            if min(bv) > 0:
                u_aa = r * (max(bv) / min(bv) - 1)
        target = NONE_TARGET if NONE.search(name) else None
        v = verdict(r, pairs, (u_iqr, u_aa), target)
        if target and not b:
            v = "no base"
        elif target and len(pairs) < 2:
            v = "unresolved"  # one boot pair has no boot-to-boot spread
        rows.append((
            name, unit, num(mb), num(ms), "-" if r is None else "%.3f" % r,
            rng(lo, hi), "-" if u_iqr is None else "%.3f" % u_iqr,
            "-" if u_aa is None or not r else "%.3f" % (1 + u_aa / r),
            "<=%.2f" % target if target else "-", v))
    show(fmt, rows, a.rst)

    print()
    print("within one boot: median over the kernel's boots (min..max), "
          "aa: the A/A ratio farthest from 1;")
    print("iqr+-: from the in-boot IQRs of the series; verdict on the series")
    if a.rst:
        print()
    fmt = "%-34s %-22s %6s %-22s %6s %6s %7s %s"
    rows = [("ratio", "base", "aa", "series", "aa", "iqr+-", "target",
             "verdict")]
    for name in ratios:
        cols = []
        for k in (base, series):
            recs = [v[name] for v, _ in k.values() if name in v]
            xs = [x["value"] for x in recs]
            aas = [x["aa"] for x in recs if "aa" in x]
            r = med(xs)
            cols.append((r, min(xs) if xs else None, max(xs) if xs else None,
                         max(aas, key=lambda x: abs(x - 1)) if aas else None,
                         [x for x in map(notch, recs) if x is not None]))
        r, lo, hi, aa, nt = cols[1]
        u_iqr = u_aa = None
        if r is not None:
            u_iqr = med(nt) * abs(r) if nt else None
            u_aa = abs(aa - 1) * r if aa is not None else None
        v = verdict(r, [lo, hi], (u_iqr, u_aa), TARGETS.get(name))
        out = []
        for r_, lo_, hi_, aa_, _ in cols:
            out.append("-" if r_ is None else
                       "%.3f (%s)" % (r_, rng(lo_, hi_)))
            out.append("-" if aa_ is None else "%.3f" % aa_)
        rows.append((
            name, out[0], out[1], out[2], out[3],
            "-" if u_iqr is None else "%.3f" % u_iqr,
            "<=%.2f" % TARGETS[name] if name in TARGETS else "-", v))
    show(fmt, rows, a.rst)

    # Only the base kernel may lack a benchmark.
    errors = []
    for n in names:
        if not any(n in v for v, _ in series.values()):
            errors.append("no series boot has %s, the base has it" % n)
    for i, (v, unavail) in sorted(series.items()):
        for n in names:
            if n not in v and any(n in w for w, _ in series.values()):
                errors.append("series boot %d: %s missing" % (i, n))
        for n in unavail:
            errors.append("series boot %d: %s unavailable" % (i, n))
    if a.expect:
        with open(a.expect) as f:
            progs = [w for line in f for w in line.split("#", 1)[0].split()]
        for i, (v, unavail) in sorted(series.items()):
            for p in progs:
                if p in unavail or any(n.startswith(p + ".") for n in v):
                    continue
                errors.append("series boot %d: nothing from %s" % (i, p))
    notes = set()
    for i, (v, unavail) in sorted(base.items()):
        for n in unavail:
            notes.add("base: %s unavailable" % n)
        for n in values:
            if n not in v and any(n in w for w, _ in base.values()):
                notes.add("base: %s missing from some boots" % n)
    if nb != ns:
        notes.add("base has %d boots, series %d" % (nb, ns))
    if a.rst and notes:
        print()
    for n in sorted(notes):
        print(("- " if a.rst else "# ") + n)
    for e in dict.fromkeys(errors):
        print("bench-table: " + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
