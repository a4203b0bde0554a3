#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of make arm64-facts (ST_FACTS=1): measures on the running
# kernel and QEMU what ../shared/notes/arm64-pmu.md says of PMUv3, with
# perf stat, and prints one "NAME: VALUE" line per fact. The host
# (scripts/arm64-facts.sh) puts the boots side by side.

. "$(dirname "$0")/perf-stat.sh"
RUNS=20

say() {	# say NAME VALUE...
	n=$1
	shift
	echo "$n: $*"
}

# mux N EVENT: with sharing off, N x EVENT; the range of the running
# percentages, and their sum in units of one event running all the time.
mux() {
	perf_stat $(repeat "$1" "$2") | awk -F, '
		{ p = $2 + 0; s += p; if (n++ == 0 || p < lo) lo = p; if (p > hi) hi = p }
		END { if (n) printf "%.2f-%.2f %% running, sum %.3f\n", lo, hi, s / 100
		      else print "no output" }'
}

# exact EVENT: the distinct counts of RUNS runs of one EVENT, "value xN",
# or what perf stat said if it counted nothing.
exact() {
	i=0
	while [ $i -lt $RUNS ]; do
		perf_stat "$1" | cut -d, -f1
		i=$((i + 1))
	done | sort | uniq -c | awk '{ printf "%s%s x%s", sep, $2, $1; sep = ", " }' >/tmp/facts.exact
	if [ -s /tmp/facts.exact ]; then
		cat /tmp/facts.exact
		echo
	else
		echo "perf stat: $(grep -v '^$' "$PERF_STAT_OUT" | head -n 2 | tr '\n' ' ')"
	fi
}

pmu=
for d in /sys/bus/event_source/devices/*; do
	case ${d##*/} in armv8_*) pmu=$d; break ;; esac
done

say cpus "$(grep -c ^processor /proc/cpuinfo)"
say dmesg "$(dmesg | grep 'hw perfevents' | sed 's/^\[[^]]*\] //')"
if [ -z "$pmu" ]; then
	say pmu "none"
	exit 0
fi
say pmu "${pmu##*/}, type $(cat "$pmu/type"), perf_event_mux_interval_ms $(cat "$pmu/perf_event_mux_interval_ms")"
if [ ! -x $PERF ]; then
	say perf "none in the guest"
	exit 0
fi

saved=
[ -e "$pmu/share_counters" ] && saved=$(cat "$pmu/share_counters") &&
	echo 0 >"$pmu/share_counters"

say instructions:u "$(exact instructions:u)"
say r08:u "$(exact r08:u)"
say cycles:u "$(exact cycles:u)"
say "12 x instructions:u" "$(mux 12 instructions:u)"
say "12 x cycles:u" "$(mux 12 cycles:u)"
say "6 x instructions:u" "$(mux 6 instructions:u)"
say "7 x instructions:u" "$(mux 7 instructions:u)"

[ -n "$saved" ] && echo "$saved" >"$pmu/share_counters"
exit 0
