#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test command (make test; CI runs it and make prefixes): the whole
# pipeline from nothing to a verdict on the tip.
#
#   get-base -> apply -> build -> boot the tip and run the selftests and
#   KUnit in the guest, and beside it, at the lowest priority, build the
#   arm64 lane (the tip cross-built for QEMU's virt machine with its PMUv3)
#   and run the series checks (scripts/check-series.sh CHECKS=series:
#   round trip, quiltimport, MAINTAINERS, checkpatch) -> boot the arm64
#   lane
#
# PREFIXES=1 (make prefixes) runs the checks of every prefix instead:
# get-base -> apply -> build -> scripts/check-series.sh CHECKS=prefixes
# (each prefix built, W=1 and sparse on what it touches, its guest run).
#
# Prints a TAP line per test and per check, the time of each stage, a
# summary line for the tests (the guest runs of the tips) and one for the
# series checks, and last
# the line CI reads, "N passed, N failed, N skipped", both together. A skip
# that selftests/skips does not pin is a failure. Exits non-zero if
# anything failed.
#
# Last, it writes the run's record (scripts/record-results.py, from a copy
# of its stdout in $BUILD/logs/NAME.out): Documentation/results/test.rst,
# test-arm64.rst for GUEST_ARCH=arm64, prefixes.rst for PREFIXES=1, or
# debug.rst for VARIANT=debug. A
# partial run (ST_TESTS, SKIP_CHECKS=1, SKIP_ARM64=1 or ARM64_TESTS set)
# writes NAME-partial.rst
# instead, which git ignores, so that it never replaces the record of a
# whole run. A record that cannot be written is only logged.
#
# Environment: SKIP_CHECKS=1 stops after the guest runs of the tip;
# SKIP_ARM64=1 leaves out the arm64 lane, ARM64_TESTS names its tests
# ("" for all; default: those that need its PMU, share_hw and perf stat);
# GUEST_ARCH=arm64 (make test-arm64) runs the whole suite on the arm64 guest
# alone (ST_TESTS to run fewer); VARIANT=debug (make debug) builds
# and boots the debug lane's kernel instead, without the series checks;
# see scripts/boot.sh for the guest's knobs.

. "$(dirname "$0")/lib.sh"

rm -f "$LOGS/times" "$LOGS/checks-summary"
start=$(date +%s)

# The record: which run, what it started from, and a copy of stdout.
partial=
[ -n "${ST_TESTS:-}" ] && partial+=" ST_TESTS=$ST_TESTS"
[ -z "$VARIANT" ] && [ "${SKIP_CHECKS:-0}" = 1 ] && partial+=" SKIP_CHECKS=1"
[ -z "$VARIANT" ] && [ "${SKIP_ARM64:-0}" = 1 ] && partial+=" SKIP_ARM64=1"
[ -z "$VARIANT" ] && [ -n "${ARM64_TESTS+set}" ] && partial+=" ARM64_TESTS=$ARM64_TESTS"
kind=${VARIANT:-test}
[ "$GUEST_ARCH" = arm64 ] && [ -z "$VARIANT" ] && kind=test-arm64
prefixes=0
if [ "${PREFIXES:-0}" = 1 ] && [ -z "$VARIANT" ] && [ "$GUEST_ARCH" = x86_64 ]; then
	prefixes=1
	kind=prefixes
fi
record=$kind${partial:+-partial}
rec_date=$(date -u '+%F %H:%M UTC')
rec_commit=$(head_commit)
exec 3>&1 > >(tee "$LOGS/$record.out")
tee_pid=$!

# What make test's arm64 lane runs: the tests that need its PMU (the whole
# suite is make test-arm64's, 9 minutes more; see Documentation/testing.rst).
ARM64_TESTS=${ARM64_TESTS-perf_events:share_hw perf_stat:sharing}

# finish: the stage times, the summaries and the closing line.
finish() {
	echo "# stage times:"
	sed 's/^/#   /' "$LOGS/times" 2>/dev/null || true
	echo "#   total                    $(($(date +%s) - start))s"
	echo "# tests: ${tests[0]} passed, ${tests[1]} failed, ${tests[2]} skipped"
	[ -n "$checked" ] &&
		echo "# series checks: ${checks[0]} passed, ${checks[1]} failed, ${checks[2]} skipped"
	# What Documentation/testing.rst records of a run: when, what, where.
	echo "# record: ${rec_date%% *}, commit $rec_commit," \
	     "$(nproc) CPUs, $(. /etc/os-release && echo "$PRETTY_NAME")," \
	     "$(qemu-system-x86_64 --version 2>/dev/null | head -n 1 | sed 's/ (.*//')," \
	     "$(($(date +%s) - start)) s"
	local closing="$((tests[0] + checks[0])) passed, $((tests[1] + checks[1])) failed, $((tests[2] + checks[2])) skipped"
	# The record, from the copy of stdout once tee has ended (at most 30 s:
	# a stray process could hold the pipe) and the closing line, which is
	# printed last.
	exec >&3 3>&-
	timeout 30 tail --pid="$tee_pid" -f /dev/null || true
	{ echo "$closing" >>"$LOGS/$record.out" &&
	  python3 "$TOP/scripts/record-results.py" --date "$rec_date" \
		--commit "$rec_commit" --partial "$partial" "$kind" \
		"$LOGS/$record.out" "$TOP/Documentation/results/$record.rst"; } ||
		log "record: Documentation/results/$record.rst not written"
	echo "$closing"
	[ $((tests[1] + checks[1])) = 0 ]
	exit
}
tests=(0 0 0) checks=(0 0 0) checked=

for s in get-base apply build; do
	if ! "$TOP/scripts/$s.sh"; then
		echo "not ok 1 stage $s # see the ERROR line above and $LOGS"
		tests=(0 1 0)
		finish
	fi
done

# add_summary ARRAY FILE WHAT: add the "passed failed skipped" of FILE to
# the array named ARRAY, or one failure if WHAT did not leave it.
add_summary() {
	local -n sum=$1
	local a b c

	if [ -f "$2" ]; then
		read -r a b c <"$2"
	else
		echo "not ok - $3 # see the ERROR line above and $LOGS"
		a=0 b=1 c=0
	fi
	sum=($((sum[0] + a)) $((sum[1] + b)) $((sum[2] + c)))
}

label=${VARIANT:+$VARIANT-}tip$ARCH_SUFFIX
arm64_lane=0 series_checks=0
[ $prefixes = 0 ] && [ -z "$VARIANT" ] && [ "$GUEST_ARCH" = x86_64 ] &&
	[ "${SKIP_ARM64:-0}" != 1 ] && arm64_lane=1
[ "${SKIP_CHECKS:-0}" != 1 ] && [ -z "$VARIANT" ] && [ "$GUEST_ARCH" = x86_64 ] &&
	series_checks=1

# Beside the x86_64 guest run, whose vCPUs leave the cores idle while its
# tests wait, the arm64 lane's build and the series checks (which need no
# kernel) run at the lowest priority, so that the guest gets nearly all the
# CPU it asks for. Their output is shown, and their stage times are listed,
# after the guest's; the total is the wall clock.
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
bg_arm64= bg_checks=
if [ $arm64_lane = 1 ]; then
	rm -rf "$LOGS/guest-tip-arm64" "$LOGS/guest-tip-arm64-a57" "$LOGS/times.arm64"
	TIMES_FILE=$LOGS/times.arm64 nice -n 19 env GUEST_ARCH=arm64 \
		"$TOP/scripts/build.sh" >"$LOGS/arm64-build.out" 2>&1 &
	bg_arm64=$!
fi
if [ $series_checks = 1 ] && [ $prefixes = 0 ]; then
	rm -f "$LOGS/times.checks"
	TIMES_FILE=$LOGS/times.checks CHECKS=series nice -n 19 \
		"$TOP/scripts/check-series.sh" >"$LOGS/checks.out" 2>"$LOGS/checks.err" &
	bg_checks=$!
fi

if [ $prefixes = 0 ]; then
	"$TOP/scripts/boot.sh" "$label" || true
	add_summary tests "$LOGS/guest-$label/summary" "stage boot"
fi

# The arm64 lane: the tip cross-built and booted with the real PMU.
if [ $arm64_lane = 1 ]; then
	rc=0
	wait "$bg_arm64" || rc=$?
	cat "$LOGS/arm64-build.out" >&2
	cat "$LOGS/times.arm64" >>"$LOGS/times" 2>/dev/null || true
	if [ $rc = 0 ]; then
		env GUEST_ARCH=arm64 ST_TESTS="$ARM64_TESTS" "$TOP/scripts/boot.sh" tip-arm64 || true
		# share_hw again on cortex-a57 (ARM64_REPRO), a PMUv3 without
		# FEAT_PMUv3p5: chained long events, and long rdpmc cycles
		# events that only the cycle counter takes.
		env GUEST_ARCH=arm64 ARM64_REPRO=1 ST_TESTS="perf_events:share_hw" \
			"$TOP/scripts/boot.sh" tip-arm64-a57 || true
	fi
	add_summary tests "$LOGS/guest-tip-arm64/summary" "arm64 lane"
	add_summary tests "$LOGS/guest-tip-arm64-a57/summary" "arm64 lane, cortex-a57"
fi

if [ $series_checks = 1 ]; then
	if [ $prefixes = 1 ]; then
		CHECKS=prefixes "$TOP/scripts/check-series.sh" || true
	else
		wait "$bg_checks" || true
		cat "$LOGS/checks.err" >&2
		cat "$LOGS/checks.out"
		cat "$LOGS/times.checks" >>"$LOGS/times" 2>/dev/null || true
	fi
	add_summary checks "$LOGS/checks-summary" "series checks did not finish"
	checked=1
fi
finish
