#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf stat as a user of counter sharing, on the first PMU other than the
# test PMU that has share_counters (the arm64 lane's PMUv3): the same
# hardware event, more times than the PMU has counters, counting one
# workload. With sharing on, no event is multiplexed (100.00 % running)
# and all counts are equal; with sharing off they are multiplexed. Prints
# TAP (one line a case); skips without perf or such a PMU.

N=12
. "$(dirname "$0")/perf-stat.sh"
n=0

tap() {	# tap ok|not-ok|skip NAME [REASON]
	n=$((n + 1))
	case $1 in
	ok)	echo "ok $n selftests: perf_stat: $2" ;;
	skip)	echo "ok $n selftests: perf_stat: $2 # SKIP $3" ;;
	*)	echo "not ok $n selftests: perf_stat: $2 # $3" ;;
	esac
}

pmu=
for d in /sys/bus/event_source/devices/*; do
	[ "${d##*/}" = test_pmu ] && continue
	[ -e "$d/share_counters" ] && { pmu=$d; break; }
done

# run EVENT SHARE: perf stat -x, of N x EVENT over the workload, with
# share_counters SHARE; prints "value,percent" per event.
run() {
	echo "$2" >"$pmu/share_counters" || return 1
	perf_stat $(repeat $N "$1")
}

# check NAME EVENT: sharing on, then off.
check() {
	out=$(run "$2" 1) || { tap not-ok "$1_on" "perf stat failed: $(head -c 300 $PERF_STAT_OUT)"; return; }
	lines=$(echo "$out" | grep -c .)
	values=$(echo "$out" | cut -d, -f1 | sort -u | grep -c .)
	full=$(echo "$out" | cut -d, -f2 | grep -c '^100\.00$')
	first=$(echo "$out" | head -n 1 | cut -d, -f1)
	if [ "$lines" = $N ] && [ "$values" = 1 ] && [ "$full" = $N ] &&
	   [ "$first" -gt 0 ] 2>/dev/null; then
		tap ok "$1_on"
	else
		tap not-ok "$1_on" "want $N equal counts at 100.00%, got: $(echo $out)"
	fi
	out=$(run "$2" 0) || { tap not-ok "$1_off" "perf stat failed"; return; }
	scaled=$(echo "$out" | cut -d, -f2 | grep -vc '^100\.00$')
	if [ "$scaled" -gt 0 ]; then
		tap ok "$1_off"
	else
		tap not-ok "$1_off" "no event multiplexed: $(echo $out)"
	fi
}

if [ ! -x $PERF ]; then
	tap skip sharing "no perf in the guest"
elif [ -z "$pmu" ]; then
	tap skip sharing "no hardware PMU that can share counters"
else
	saved=$(cat "$pmu/share_counters")
	check instructions instructions:u
	check cycles cycles:u
	echo "$saved" >"$pmu/share_counters"
fi
