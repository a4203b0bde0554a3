#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""make mutate: would the selftests notice a one-line change of sharing?

    scripts/mutate.py [--check] [--only ID,...] [--list FILE]

Each mutation of selftests/mutations is applied alone to a copy of the
series' tip (build/mutate, a worktree of build/linux, which
scripts/apply.sh makes from patches/ first), which is
rebuilt incrementally (VARIANT=mutate, its own build directory) and booted
with the sharing selftests (MUTATE_TESTS, or the mutation's own "tests:";
the model checker runs SHARE_MODEL_MS=3000 unless set).
Before the first mutation the unchanged tree runs the same tests, and must
pass: otherwise nothing could be concluded. A mutation is

  killed     a selftest failed: it fails on its own, under any runner
  hang       the guest did not finish: a panic, or a hang that the
             kselftest runner's timeout would fail
  console    only the project's own checks failed the run (a WARN or
             lockdep report on the console, kmemleak, a skip that
             selftests/skips does not pin): the standard runner would not
             notice
  error      the guest run was not judged (boot.sh failed early)
  survived   everything passed; with "equivalent:" in its block, explained
             (equivalent); with "oracle:", a mutation of the test PMU's
             own checks, which a correct core never trips (oracle)
  oracle     an "oracle:" block with "masks: ID": it survived alone, and
             the core mutation ID, which the selftests kill, survived too
             with this one applied beside it: the check mutated here is
             what kills ID
  redundant  the same, but ID was still killed with the check mutated:
             other checks catch ID, and this one is not shown to matter
  stale      its "old" text is not in the file exactly once
  build      it does not build

--check only checks that every "old" text is found exactly once, without
building anything. The record goes to Documentation/results/mutate.rst,
with the run's date, the commit of this repository and the tip's sha.
Not part of make test: a mutation takes a build and a boot (1-2 minutes
here).
"""

import argparse
import datetime
import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("BUILD_DIR", os.path.join(TOP, "build"))
SERIES_TREE = os.path.join(BUILD, "linux")
TREE = os.path.join(BUILD, "mutate")
RECORD = os.path.join(TOP, "Documentation", "results", "mutate.rst")
DEFAULT_TESTS = ("perf_events:share perf_events:share_ctx "
                 "perf_events:share_handover perf_events:share_model")


def parse(path):
    """The blocks of the mutation list, as dicts, in file order."""
    muts, cur, field = [], None, None
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if line.startswith("#") or (not line.strip() and field is None):
                continue
            m = re.match(r"^\[([a-z0-9-]+)\]$", line)
            if m:
                cur = {"id": m.group(1), "old": [], "new": [], "line": n}
                muts.append(cur)
                field = None
                continue
            if cur is None:
                sys.exit("%s:%d: text before the first [id]" % (path, n))
            if line in ("old:", "new:"):
                field = line[:-1]
                continue
            if line.startswith("| ") or line == "|":
                if field is None:
                    sys.exit("%s:%d: '|' line outside old:/new:" % (path, n))
                cur[field].append(line[2:])
                continue
            if not line.strip():
                field = None
                continue
            m = re.match(r"^(file|promise|tests|guest|equivalent|oracle|masks): (.+)$",
                         line)
            if not m:
                sys.exit("%s:%d: cannot parse: %s" % (path, n, line))
            cur[m.group(1)] = m.group(2)
            field = None
    ids = set()
    for mu in muts:
        for k in ("file", "promise"):
            if k not in mu:
                sys.exit("%s:%d: [%s] has no %s:" % (path, mu["line"], mu["id"], k))
        if not mu["old"]:
            sys.exit("%s:%d: [%s] has no old text" % (path, mu["line"], mu["id"]))
        if mu["id"] in ids:
            sys.exit("%s:%d: [%s] twice" % (path, mu["line"], mu["id"]))
        # An oracle mutation is not an equivalent one: no user-visible
        # promise holds on it, it only blinds a check of the core.
        if "oracle" in mu and "equivalent" in mu:
            sys.exit("%s:%d: [%s] has both oracle: and equivalent:"
                     % (path, mu["line"], mu["id"]))
        if "masks" in mu and "oracle" not in mu:
            sys.exit("%s:%d: [%s] has masks: without oracle:"
                     % (path, mu["line"], mu["id"]))
        ids.add(mu["id"])
        mu["old"] = "\n".join(mu["old"]) + "\n"
        mu["new"] = "\n".join(mu["new"]) + "\n" if mu["new"] else ""
    byid = {mu["id"]: mu for mu in muts}
    for mu in muts:
        if "masks" not in mu:
            continue
        other = byid.get(mu["masks"])
        if other is None or other is mu or "oracle" in other:
            sys.exit("%s:%d: [%s] masks: names no core mutation of the list"
                     % (path, mu["line"], mu["id"]))
        mu["masked"] = other
    return muts


def git(*args, cwd=TREE, check=True):
    return subprocess.run(["git", "-C", cwd] + list(args), check=check,
                          capture_output=True, text=True).stdout.strip()


def prepare_tree():
    """build/mutate at the tip of the series as patches/ has it, clean."""
    subprocess.run(["bash", "-c", "scripts/get-base.sh && scripts/apply.sh"],
                   cwd=TOP, check=True, stdout=subprocess.DEVNULL)
    tip = git("rev-parse", "HEAD", cwd=SERIES_TREE)
    if not os.path.exists(os.path.join(TREE, ".git")):
        git("worktree", "prune", cwd=SERIES_TREE)
        git("worktree", "add", "--detach", TREE, tip, cwd=SERIES_TREE)
    # -f: a run killed while a mutation was applied left it dirty.
    git("checkout", "-q", "-f", "--detach", tip)
    git("reset", "-q", "--hard", tip)
    return tip


def apply(mu, root):
    path = os.path.join(root, mu["file"])
    with open(path) as f:
        text = f.read()
    if text.count(mu["old"]) != 1:
        return None, text
    return text.replace(mu["old"], mu["new"]), text


def run_applied(muts, tests, guest):
    """Apply every mutation of @muts to TREE (one after the other, so two
    may change one file), run the guest, and restore the files: the
    verdict and its lines, or "stale" when an old text is not found once
    in the file as the ones before left it."""
    saved = {}
    try:
        for mu in muts:
            path = os.path.join(TREE, mu["file"])
            with open(path) as f:
                text = f.read()
            saved.setdefault(path, text)
            if text.count(mu["old"]) != 1:
                return "stale", "[%s]: old text not found exactly once" % mu["id"]
            with open(path, "w") as f:
                f.write(text.replace(mu["old"], mu["new"]))
        return run_guest("mutate", tests, guest)
    finally:
        for path, text in saved.items():
            with open(path, "w") as f:
                f.write(text)


# A mutation's "guest:": the environment of the guest it needs.
GUESTS = {
    "x86_64": {},
    "arm64": {"GUEST_ARCH": "arm64"},
    # PMUv3 without FEAT_PMUv3p5 (chained counters, Cortex-A57).
    "arm64-a57": {"GUEST_ARCH": "arm64", "ARM64_REPRO": "1"},
}


def run_guest(label, tests, guest="x86_64"):
    """Build build/mutate and boot it: (verdict, failing lines)."""
    env = dict(os.environ, SRC_DIR=TREE, VARIANT="mutate", ST_TESTS=tests,
               **GUESTS[guest])
    # The model checker for 3 s per mode, not 20: a mutation it alone
    # would notice in 20 s is rare, and 35 mutations must fit an hour.
    env.setdefault("SHARE_MODEL_MS", "3000")
    # A killed mutation needs no program after the first that fails.
    env.setdefault("ST_STOP_AT_FAIL", "1")
    # The guest runs these tests in about 2 minutes: a hang is a hang
    # after 5, not after boot.sh's 10.
    env.setdefault("BOOT_TIMEOUT", "300")
    b = subprocess.run([os.path.join(TOP, "scripts", "build.sh")], cwd=TOP,
                       env=env, capture_output=True, text=True)
    if b.returncode:
        return "build", b.stderr.strip().splitlines()[-3:]
    r = subprocess.run([os.path.join(TOP, "scripts", "boot.sh"), label],
                       cwd=TOP, env=env, capture_output=True, text=True)
    out = r.stdout.splitlines()
    # No summary line: results.py never judged the run.
    if not any(re.match(r"^# %s: \d+ passed" % label, l) for l in out):
        return "error", (r.stderr.strip().splitlines() or ["no verdict"])[-3:]
    fails = [l for l in out if l.startswith("not ok")]
    # The project's own checks: the guest did not finish, the console had
    # a report, kmemleak found a leak, a skip that is not pinned.
    own = re.compile(r"^not ok \d+ (guest|kernel|kmemleak): |# unpinned skip")
    tests_failed = [l for l in fails if not own.search(l)]
    if tests_failed:
        return "killed", tests_failed
    if any(re.match(r"^not ok \d+ guest: ", l) for l in fails):
        return "hang", fails
    if fails:
        return "console", fails
    return "survived", []


def short(lines, n=2):
    out = []
    for l in lines[:n]:
        l = re.sub(r"^not ok \d+ ", "", l)
        out.append(l if len(l) <= 70 else l[:67] + "...")
    return "; ".join(out)


def previous_rows():
    """id -> (verdict, tip, why) from the record on disk, if any."""
    rows = {}
    try:
        text = open(RECORD).read()
    except OSError:
        return rows
    m = re.search(r"series tip ([0-9a-f]{12})", text)
    run_tip = m.group(1) if m else "?"
    for line in text.splitlines():
        m = re.match(r"^``([^`]+)``\s+(not run|\S+)\s+(?:([0-9a-f]{12}|-{12}) )?\s*(.*)$", line)
        if m:
            rows[m.group(1)] = (m.group(2), m.group(3) or run_tip, m.group(4))
    return rows


def explained(mu, v, why):
    """A survivor whose block explains it: equivalent, or an oracle."""
    if v == "survived":
        for k in ("equivalent", "oracle"):
            if mu.get(k):
                return k, mu[k]
    return v, why


def chosen(only, n, done):
    """What a partial record says it ran: the --only choice (how many, not
    which: the rows say that), and how far an interrupted run got."""
    what = "%d chosen mutations" % n if only else "%d mutations" % n
    if done is not None:
        return "%d of %s (interrupted)" % (done, what)
    return what if only else None


def write_record(results, tip, tests, started, partial, all_muts):
    """The record: every mutation of the list, each with the tip it last
    ran at; an --only run keeps the other rows of the previous record."""
    repo = subprocess.run(["git", "-C", TOP, "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", TOP, "status", "--porcelain", "-uno"],
                           capture_output=True, text=True).stdout.strip()
    rows = previous_rows() if partial else {}
    for mu, v, why in results:
        if v == "survived":
            why = mu["promise"]  # explained() below, as every row is
        elif v == "oracle":
            why = "%s (without it, %s survives)" % (mu["oracle"], mu["masks"])
        elif v == "redundant":
            why = "%s is killed without this check too: %s" % (mu["masks"], short(why))
        elif isinstance(why, list):
            why = short(why)
        rows[mu["id"]] = (v, tip[:12], why)
    table = []
    for mu in all_muts:
        v, t, why = rows.get(mu["id"], ("not run", "-" * 12, mu["promise"]))
        v, why = explained(mu, v, why)
        table.append((mu["id"], v, t, why))
    counts = {}
    for _, v, _, _ in table:
        counts[v] = counts.get(v, 0) + 1
    w = max([len(i) for i, _, _, _ in table] + [8]) + 4
    lines = [
        ".. SPDX-License-Identifier: GPL-2.0",
        "",
        "=======================",
        "make mutate: last run",
        "=======================",
        "",
        "Written by scripts/mutate.py; do not edit. Run of %s UTC, commit %s%s,"
        % (started, repo, " (dirty)" if dirty else ""),
        "series tip %s; tests: ``%s``%s." % (tip[:12], tests,
                                            ", only " + partial if partial else ""),
        "Rows with another tip are from an earlier run, kept by a partial one.",
        "",
        ", ".join("%d %s" % (counts[k], k) for k in sorted(counts)) + ".",
        "",
        "=" * w + " ========== ============ " + "=" * 50,
        "mutation".ljust(w) + " verdict    tip          " + "what failed, or why it cannot",
        "=" * w + " ========== ============ " + "=" * 50,
    ]
    for i, v, t, why in table:
        lines.append(("``%s``" % i).ljust(w) + " " + v.ljust(10) + " " + t.ljust(12) + " " + why)
    lines.append("=" * w + " ========== ============ " + "=" * 50)
    lines.append("")
    with open(RECORD, "w") as f:
        f.write("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--list", default=os.path.join(TOP, "selftests", "mutations"))
    ap.add_argument("--only", help="comma-separated ids")
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--tree", help="--check against this tree (default build/linux)")
    args = ap.parse_args()

    muts = all_muts = parse(args.list)
    if args.only:
        want = args.only.split(",")
        unknown = set(want) - {m["id"] for m in muts}
        if unknown:
            sys.exit("unknown mutation(s): " + ", ".join(sorted(unknown)))
        muts = [m for m in muts if m["id"] in want]

    if args.check:
        root = args.tree or SERIES_TREE
        bad = 0
        for mu in muts:
            new, _ = apply(mu, root)
            if new is None:
                print("stale: [%s] not found exactly once in %s" % (mu["id"], mu["file"]))
                bad += 1
        print("%d mutations, %d stale" % (len(muts), bad))
        return 1 if bad else 0

    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")
    tip = prepare_tree()
    tests = os.environ.get("MUTATE_TESTS", DEFAULT_TESTS)
    print("# mutate: tip %s, %d mutations, tests %s" % (tip[:12], len(muts), tests),
          flush=True)

    based = set()
    results = []
    for mu in muts:
        guest = mu.get("guest", "x86_64")
        if guest not in GUESTS:
            sys.exit("[%s]: unknown guest %s" % (mu["id"], guest))
        if guest not in based:
            # The unchanged tip must pass there: else nothing follows.
            v, why = run_guest("mutate-base", mu.get("tests", tests)
                               if guest != "x86_64" else tests, guest)
            if v != "survived":
                print("# the unchanged tip does not pass on %s: %s %s" %
                      (guest, v, short(why, 5)))
                return 1
            based.add(guest)
        v, why = run_applied([mu], mu.get("tests", tests), guest)
        if v == "survived" and "masked" in mu:
            # The oracle blinded: does the core mutation it masks, which
            # the suite kills, get through now? Run with that one's tests.
            other = mu["masked"]
            v2, why2 = run_applied([mu, other], other.get("tests", tests), guest)
            if v2 == "survived":
                v, why = "oracle", []
            elif v2 in ("killed", "hang"):
                v, why = "redundant", why2
            else:
                v, why = v2, why2
        results.append((mu, v, why))
        # A record after every mutation: an interrupted run leaves one.
        done = len(results) < len(muts)
        write_record(results, tip, tests, started,
                     chosen(args.only, len(muts), len(results) if done else None),
                     all_muts)
        print("%s %s %s" % (results[-1][1], mu["id"],
                            short(results[-1][2]) if isinstance(results[-1][2], list)
                            else results[-1][2]), flush=True)

    # Leave the build directory matching the tree again.
    subprocess.run([os.path.join(TOP, "scripts", "build.sh")], cwd=TOP,
                   env=dict(os.environ, SRC_DIR=TREE, VARIANT="mutate"),
                   capture_output=True)
    write_record(results, tip, tests, started, chosen(args.only, len(muts), None),
                 all_muts)
    # An oracle without masks: is taken on its word; with one, only a
    # shown role counts ("redundant" is reported, and fails the run).
    survivors = [mu["id"] for mu, v, _ in results
                 if v in ("survived", "console", "stale", "build", "error",
                          "redundant") and
                 not (v == "survived" and (mu.get("equivalent") or
                                           (mu.get("oracle") and
                                            "masked" not in mu)))]
    print("%d mutations: %d killed, %d not: %s" %
          (len(results), len(results) - len(survivors), len(survivors),
           " ".join(survivors) or "-"))
    return 1 if survivors else 0


if __name__ == "__main__":
    sys.exit(main())
