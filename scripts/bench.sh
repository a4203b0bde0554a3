#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmarks: boot the base kernel and the series' kernel, each with
# ST_BENCH=1 (the guest runs selftests/benchmarks instead of the tests),
# and print every benchmark's value on both and the ratio series/base.
# Each benchmark also prints its own ratios within one boot where that is
# what it measures (e.g. sharing on vs off).
#
# The base kernel is built from a worktree of the base ($BUILD/base-tree)
# in $BUILD/out-base, with the same kernel-config (symbols the base does
# not have are left out).
#
# Dependencies: those of scripts/build.sh and scripts/boot.sh.

. "$(dirname "$0")/lib.sh"

[ -e "$SRC/.git" ] || die bench "$SRC" "missing: run make first"
bt=$BUILD/base-tree
base_worktree "$bt"

stage_begin bench-build
env VARIANT=base SRC_DIR="$bt" PREFIX_CHECK=1 "$TOP/scripts/build.sh" >"$LOGS/bench-base-build.log" 2>&1 ||
	die bench "$LOGS/bench-base-build.log" "base kernel build failed"
"$TOP/scripts/build.sh" >"$LOGS/bench-series-build.log" 2>&1 ||
	die bench "$LOGS/bench-series-build.log" "series kernel build failed"
stage_end bench-build

env ST_BENCH=1 VARIANT=base SRC_DIR="$bt" "$TOP/scripts/boot.sh" bench-base >"$LOGS/bench-base.tap" 2>&1 ||
	die bench "$LOGS/bench-base.tap" "base guest run failed"
ST_BENCH=1 "$TOP/scripts/boot.sh" bench-series >"$LOGS/bench-series.tap" 2>&1 ||
	die bench "$LOGS/bench-series.tap" "series guest run failed"

python3 - "$LOGS/bench-base.tap" "$LOGS/bench-series.tap" <<'PY'
import re, sys
def load(p):
    d = {}
    for line in open(p):
        m = re.match(r"# bench: bench: (\S+) ([0-9.]+) (\S+)", line)
        if m:
            d[m.group(1)] = (float(m.group(2)), m.group(3))
    return d
base, series = load(sys.argv[1]), load(sys.argv[2])
print("%-32s %12s %12s %8s" % ("benchmark", "base", "series", "ratio"))
for name, (v, unit) in series.items():
    b = base.get(name)
    print("%-32s %12s %12s %8s  %s" % (name, "%.2f" % b[0] if b else "-",
          "%.2f" % v, "%.3f" % (v / b[0]) if b and b[0] else "-", unit))
PY
