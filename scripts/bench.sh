#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmarks: boot the base kernel and the series' kernel alternately,
# BENCH_BOOTS times each (base, series, base, series, ...), each with
# ST_BENCH=1 (the guest runs selftests/benchmarks instead of the tests),
# and print the table of scripts/bench-table.py: each value's median over
# the boots of each kernel, the ratio series/base and its spread over the
# pairs of boots, each ratio measured within one boot (e.g. sharing on vs
# off) per kernel, and a verdict for each ratio with a target. Within a
# boot each benchmark reports the median and IQR of its interleaved rounds
# and an A/A control for its ratios (selftests/bench/stats.h).
#
# Each boot's results go to $BUILD/logs/bench-KERNEL-I.tap (the guest's
# logs to $BUILD/logs/guest-bench-KERNEL-I/), KERNEL base or series, I
# from 1. Fails if a benchmark that runs on the series' kernel is missing
# from one of its boots; only the base kernel may lack one (share: the
# base has no counter sharing).
#
# GUEST_ARCH=arm64 (make bench-arm64) boots the arm64 guest instead, with
# its instruction counting (-icount: while the vCPU is busy, guest time
# advances by the instructions it runs, so busy work takes the same time
# in every boot); its taps go to $BUILD/logs/bench-arm64/. With
# ARM64_REPRO=1 as well, the boots are those of scripts/boot.sh's
# ARM64_REPRO (the same -cpu, no randomness): taps in bench-arm64-repro/,
# record bench-arm64-repro.rst.
#
# Last, it writes the run's record, Documentation/results/bench.rst
# (bench-arm64.rst for arm64; scripts/record-results.py: when, what,
# where, and the tables); a record that cannot be written is only logged.
#
# The base kernel is built from a worktree of the base ($BUILD/base-tree)
# in $BUILD/out-base, the series' in $BUILD/out-bench, both with the same
# kernel-config (symbols the base does not have are left out) and without
# the test kernels' lock checking.
#
# Environment:
#   BENCH_BOOTS    boots of each kernel (3)
#
# Dependencies: those of scripts/build.sh and scripts/boot.sh.

. "$(dirname "$0")/lib.sh"

boots=${BENCH_BOOTS:-3}
[[ $boots =~ ^[1-9][0-9]*$ ]] || die bench BENCH_BOOTS "'$boots' is not a number of boots"
[ -e "$SRC/.git" ] || die bench "$SRC" "missing: run make first"
rec_date=$(date -u '+%F %H:%M UTC')
rec_commit=$(head_commit)
bt=$BUILD/base-tree
base_worktree "$bt"
# Where this architecture's taps and record go; ARM64_REPRO=1 (boots
# whose counts are bit-identical, scripts/boot.sh) has its own.
suffix=$ARCH_SUFFIX
[ "$GUEST_ARCH" = arm64 ] && [ "${ARM64_REPRO:-0}" = 1 ] && suffix+=-repro
BLOGS=$LOGS${suffix:+/bench$suffix}
record=bench$suffix.rst
mkdir -p "$BLOGS"

stage_begin bench-build
env VARIANT=base SRC_DIR="$bt" PREFIX_CHECK=1 "$TOP/scripts/build.sh" >"$LOGS/bench-base-build.log" 2>&1 ||
	die bench "$LOGS/bench-base-build.log" "base kernel build failed"
env VARIANT=bench "$TOP/scripts/build.sh" >"$LOGS/bench-series-build.log" 2>&1 ||
	die bench "$LOGS/bench-series-build.log" "series kernel build failed"
stage_end bench-build

# The table reads every bench-*-I.tap: none may be left from a longer run.
rm -f "$BLOGS"/bench-base*.tap "$BLOGS"/bench-series*.tap
for ((i = 1; i <= boots; i++)); do
	log "bench: boot pair $i of $boots (base, series)"
	tap=$BLOGS/bench-base-$i.tap
	env ST_BENCH=1 VARIANT=base SRC_DIR="$bt" "$TOP/scripts/boot.sh" "bench-base$ARCH_SUFFIX-$i" >"$tap" 2>&1 ||
		die bench "$tap" "base guest run $i failed"
	tap=$BLOGS/bench-series-$i.tap
	env ST_BENCH=1 VARIANT=bench "$TOP/scripts/boot.sh" "bench-series$ARCH_SUFFIX-$i" >"$tap" 2>&1 ||
		die bench "$tap" "series guest run $i failed"
done

rc=0
python3 "$TOP/scripts/bench-table.py" --expect "$TOP/selftests/benchmarks" "$BLOGS" || rc=$?
python3 "$TOP/scripts/record-results.py" --date "$rec_date" --commit "$rec_commit" \
	"${record%.rst}" "$BLOGS" "$TOP/Documentation/results/$record" ||
	log "bench: record Documentation/results/$record not written"
[ $rc = 0 ] || die bench "$BLOGS/bench-series-*.tap" "results incomplete (see above)"
