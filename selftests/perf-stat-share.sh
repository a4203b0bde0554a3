#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# perf stat as a user of counter sharing, on the first PMU other than the
# test PMU that has share_counters (the arm64 lane's PMUv3):
#  - the same hardware event, more times than the PMU has counters,
#    counting one workload. With sharing on, no event is multiplexed
#    (100.00 % running) and all counts are equal; with sharing off they
#    are multiplexed.
#  - beside_raw_tool: perf stat with exclude_guest set (the :H modifier;
#    perf set it on every event by default until it did so only for perf
#    kvm, exclude_GH_default) counting tools/raw_peer, which counts itself
#    as programs that call perf_event_open() do (raw numbers, exclude_guest
#    0). Six ways of
#    naming instructions and cycles in perf stat and four in raw_peer, ten
#    kinds that need a counter each unless the driver's key tells that
#    they count the same, while raw_peer -hold leaves one general counter
#    and the cycle counter: with sharing on all counts of a kind are
#    equal, at 100.00 %, and perf stat's are its kind's count alone; with
#    sharing off they multiplex.
#  - groups: N x {instructions:u,cycles:u}, a metric group as several
#    tools would open it, twice as many events as the PMU has counters.
#    With sharing on all counts of a kind are equal, at 100.00 %, and
#    those of the group alone; with sharing off the groups multiplex.
# "Alone" is another run of the same program: its start-up (the C
# library, with ASLR) may run a few instructions more or less, so counts
# of two runs agree within 0.01 % (see alike()); those of one run exactly.
# Prints TAP (one line a case); skips without perf or such a PMU.

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

PEER=$(dirname "$0")/tools/raw_peer
PEER_ARGS="16 8 11 10008 10011"	# 16 events: raw 0x08 and 0x11, plain and masked
PEER_OUT=/tmp/raw-peer.out

# peer_run SHARE EVENTS: share_counters SHARE, then perf stat -x, -e EVENTS
# (a comma-separated list) over raw_peer; perf's "value,percent" lines on
# stdout, raw_peer's in $PEER_OUT.
peer_run() {
	echo "$1" >"$pmu/share_counters" || return 1
	$PERF stat -x, -e "$2" -- "$PEER" $PEER_ARGS \
		2>"$PERF_STAT_OUT" >"$PEER_OUT" || return 1
	grep -v '^#' "$PERF_STAT_OUT" | awk -F, 'NF >= 5 { print $1 "," $5 }'
}

# exact LINES INS CYC: every "value,percent" line at 100.00, the odd ones
# (first, third, ...) counting INS and the even ones CYC; else prints the
# first line that is not.
exact() {
	echo "$1" | awk -F, -v a="$2" -v b="$3" '
		{ want = NR % 2 ? a : b }
		$2 != "100.00" || $1 != want { print NR ": " $0 " (want " want ",100.00)"; bad = 1; exit }
		END { exit bad }'
}

# near X Y: X within 0.01 % of Y (Y > 0).
near() {
	[ "$1" -ge 0 ] 2>/dev/null && [ "$2" -gt 0 ] 2>/dev/null || return 1
	d=$(($1 - $2))
	[ $d -lt 0 ] && d=$((-d))
	[ $((d * 10000)) -le "$2" ]
}

# alike LINES INS CYC: as exact, with the counts of the first two lines
# for INS and CYC, which must be within 0.01 % of INS and CYC: the counts
# of one run are compared exactly, and with those of another run of the
# same program (the reference run) within what its start-up may vary from
# run to run (a few instructions in the C library, with ASLR).
alike() {
	a=$(echo "$1" | sed -n 1p | cut -d, -f1)
	b=$(echo "$1" | sed -n 2p | cut -d, -f1)
	near "$a" "$2" || { echo "1: $a, alone $2"; return 1; }
	near "$b" "$3" || { echo "2: $b, alone $3"; return 1; }
	exact "$1" "$a" "$b"
}

beside_raw_tool() {
	p=${pmu##*/}
	ref=$(peer_run 1 instructions:uH,cycles:uH) ||
		{ tap not-ok beside_raw_tool "perf stat failed: $(head -c 300 $PERF_STAT_OUT)"; return; }
	ins=$(echo "$ref" | sed -n 1p | cut -d, -f1)
	cyc=$(echo "$ref" | sed -n 2p | cut -d, -f1)
	r8=$(sed -n 1p "$PEER_OUT" | cut -d, -f1)
	r11=$(sed -n 2p "$PEER_OUT" | cut -d, -f1)
	kinds="instructions:uH,cycles:uH,r08:uH,r11:uH,$p/inst_retired/uH,$p/cpu_cycles/uH"
	if ! bad=$(exact "$ref" "$ins" "$cyc") || ! bad=$(exact "$(cat $PEER_OUT)" "$r8" "$r11") ||
	   [ "$(echo "$ref" | grep -c .)" != 2 ] || [ "$(grep -c . $PEER_OUT)" != 16 ]; then
		tap not-ok beside_raw_tool "reference run not exact: $bad"
		return
	fi
	# Pinned CPU-wide events on all general counters but one, meanwhile.
	rm -f /tmp/hold.fifo
	mkfifo /tmp/hold.fifo
	"$PEER" -hold >/tmp/hold.fifo &
	hold=$!
	read -r held </tmp/hold.fifo
	case $held in
	held*)	;;
	*)	kill $hold; tap not-ok beside_raw_tool "raw_peer -hold failed"; return ;;
	esac
	out=$(peer_run 1 "$kinds,$kinds")
	st=$?
	peer=$(cat $PEER_OUT)
	off=$(peer_run 0 "$kinds,$kinds")
	st_off=$?
	peer_off=$(cat $PEER_OUT)
	kill $hold
	wait $hold 2>/dev/null
	[ $st = 0 ] ||
		{ tap not-ok beside_raw_tool_on "perf stat failed: $(head -c 300 $PERF_STAT_OUT)"; return; }
	if [ "$(echo "$out" | grep -c .)" != 12 ]; then
		tap not-ok beside_raw_tool_on "want 12 perf stat counts: $(echo $out)"
	elif ! bad=$(alike "$out" "$ins" "$cyc"); then
		tap not-ok beside_raw_tool_on "perf stat $bad; perf stat: $(echo $out); raw_peer: $(echo $peer)"
	elif ! bad=$(exact "$peer" "$r8" "$r11"); then
		tap not-ok beside_raw_tool_on "raw_peer $bad; perf stat: $(echo $out); raw_peer: $(echo $peer)"
	else
		tap ok beside_raw_tool_on
	fi
	[ $st_off = 0 ] || { tap not-ok beside_raw_tool_off "perf stat failed"; return; }
	scaled=$( (echo "$off"; echo "$peer_off") | cut -d, -f2 | grep -vc '^100\.00$')
	if [ "$scaled" -gt 0 ]; then
		tap ok beside_raw_tool_off
	else
		tap not-ok beside_raw_tool_off "no event multiplexed: $(echo $off)"
	fi
}

# groups: see the top of the file.
groups() {
	ref=$(echo 1 >"$pmu/share_counters" && perf_stat '{instructions:u,cycles:u}') ||
		{ tap not-ok groups "perf stat failed: $(head -c 300 $PERF_STAT_OUT)"; return; }
	ins=$(echo "$ref" | sed -n 1p | cut -d, -f1)
	cyc=$(echo "$ref" | sed -n 2p | cut -d, -f1)
	if ! bad=$(exact "$ref" "$ins" "$cyc") || [ "$(echo "$ref" | grep -c .)" != 2 ]; then
		tap not-ok groups "reference run not exact: $bad"
		return
	fi
	out=$(run '{instructions:u,cycles:u}' 1) ||
		{ tap not-ok groups_on "perf stat failed: $(head -c 300 $PERF_STAT_OUT)"; return; }
	if [ "$(echo "$out" | grep -c .)" != $((2 * N)) ]; then
		tap not-ok groups_on "want $((2 * N)) counts: $(echo $out)"
	elif ! bad=$(alike "$out" "$ins" "$cyc"); then
		tap not-ok groups_on "$bad; alone: $ins, $cyc; got: $(echo $out)"
	else
		tap ok groups_on
	fi
	out=$(run '{instructions:u,cycles:u}' 0) || { tap not-ok groups_off "perf stat failed"; return; }
	scaled=$(echo "$out" | cut -d, -f2 | grep -vc '^100\.00$')
	if [ "$scaled" -gt 0 ]; then
		tap ok groups_off
	else
		tap not-ok groups_off "no group multiplexed: $(echo $out)"
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
	groups
	if [ ! -x "$PEER" ]; then
		tap skip beside_raw_tool "no $PEER"
	elif [ -e /dev/kvm ]; then
		# exclude_guest counts apart where KVM can run guests.
		tap skip beside_raw_tool "a KVM host: perf's exclude_guest=1 is its own kind"
	else
		beside_raw_tool
	fi
	echo "$saved" >"$pmu/share_counters"
fi
