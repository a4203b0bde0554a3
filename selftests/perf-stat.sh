# SPDX-License-Identifier: GPL-2.0
#
# Sourced by the guest scripts that run perf stat (perf-stat-share.sh,
# arm64-facts.sh).

PERF=/usr/bin/perf
# What perf stat wrote to stderr (its -x, output), for messages.
PERF_STAT_OUT=/tmp/perf-stat.out

# perf_stat EVENTS...: perf stat -x, of the events over the workload
# (user-mode work in a forked child, enabled on exec); prints
# "value,percent" per event. Fails if perf stat does.
perf_stat() {
	ev=
	for e in "$@"; do ev="$ev -e $e"; done
	$PERF stat -x, $ev -- /bin/busybox seq 1 30000 \
		2>"$PERF_STAT_OUT" >/dev/null || return 1
	# value,unit,event,run-time,percent,...
	grep -v '^#' "$PERF_STAT_OUT" | awk -F, 'NF >= 5 { print $1 "," $5 }'
}

# repeat N WORD: N lines of WORD.
repeat() {
	i=0
	while [ $i -lt "$1" ]; do echo "$2"; i=$((i + 1)); done
}
