#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make arm64-facts: measures again what ../shared/notes/arm64-pmu.md says
# of QEMU's PMUv3, on the series' arm64 kernel as the arm64 lane builds it
# (the tip), booted in each way the lane and the note use:
#
#   1-icount    -icount shift=0, one vCPU: the arm64 lane
#   2-icount2   the same with two vCPUs
#   3-mttcg     no instruction counting, two vCPUs, MTTCG (ICOUNT=0)
#   4-repro-a, 5-repro-b  the note's settings for multiplexed counts that
#               are bit-identical across boots (ARM64_REPRO=1), booted twice
#
# Each boot runs selftests/arm64-facts.sh (ST_FACTS=1) and nothing else.
# The record goes to Documentation/results/arm64-facts.rst
# (scripts/record-results.py), with the values each boot measured.
#
# Dependencies: those of scripts/build.sh and scripts/boot.sh.

GUEST_ARCH=arm64
export GUEST_ARCH
. "$(dirname "$0")/lib.sh"

rec_date=$(date -u '+%F %H:%M UTC')
rec_commit=$(head_commit)
"$TOP/scripts/get-base.sh" && "$TOP/scripts/apply.sh" && "$TOP/scripts/build.sh" ||
	die arm64-facts "$SRC" "the arm64 build failed"

dir=$LOGS/arm64-facts
rm -rf "$dir"
mkdir -p "$dir"
for mode in 1-icount 2-icount2 3-mttcg 4-repro-a 5-repro-b; do
	case $mode in
	*-icount)	env=(ICOUNT=1 GUEST_SMP=1) ;;
	*-icount2)	env=(ICOUNT=1 GUEST_SMP=2) ;;
	*-mttcg)	env=(ICOUNT=0 GUEST_SMP=2) ;;
	*-repro-?)	env=(ARM64_REPRO=1 GUEST_SMP=1) ;;
	esac
	env "${env[@]}" ST_FACTS=1 "$TOP/scripts/boot.sh" "facts-$mode" >/dev/null 2>&1 || true
	# The virtio console ends lines with CR LF.
	tr -d '\r' <"$LOGS/guest-facts-$mode/tests.log" |
		sed -n '/^@@@ FACTS$/,/^@@@ FACTS-END$/{/^@@@/d;p}' >"$dir/$mode.txt"
	[ -s "$dir/$mode.txt" ] || echo "boot: nothing measured, see $LOGS/guest-facts-$mode" >"$dir/$mode.txt"
	log "$mode: $(wc -l <"$dir/$mode.txt") facts"
done
python3 "$TOP/scripts/record-results.py" --date "$rec_date" --commit "$rec_commit" \
	facts "$dir" "$TOP/Documentation/results/arm64-facts.rst"
cat "$TOP/Documentation/results/arm64-facts.rst"
