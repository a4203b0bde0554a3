#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest-side runner. Prints, between "@@@" markers that the host parses
# (scripts/results.py):
#   - the KUnit suites' KTAP results (run at boot, read from debugfs),
#   - the kselftests listed in suites, through the standard kselftest
#     runner (run_kselftest.sh, TAP),
#   - with ST_BENCH=1, instead of the kselftests, the benchmarks listed in
#     benchmarks,
#   - with ST_FACTS=1, instead of both, what arm64-facts.sh measures of the
#     PMU (make arm64-facts),
#   - where kmemleak is on (the debug lane), what it found since boot.
#
# ST_TESTS (space-separated "collection:test" names) limits which
# kselftests run; empty means every test of the collections in suites.

H=/selftests-harness
echo "@@@ BEGIN $(uname -r) cpus=$(grep -c ^processor /proc/cpuinfo)"

if [ "${ST_FACTS:-0}" = 1 ]; then
	echo "@@@ FACTS"
	"$H/arm64-facts.sh"
	echo "@@@ FACTS-END"
	echo "@@@ END"
	exit 0
fi

for r in /sys/kernel/debug/kunit/*/results; do
	[ -e "$r" ] || continue
	s=${r%/results}
	echo "@@@ KUNIT ${s##*/}"
	cat "$r"
	echo "@@@ KUNIT-END"
done

# kmemleak (debug lane): forget what boot left, report what the tests leak.
KML=/sys/kernel/debug/kmemleak
if [ -w $KML ]; then
	echo scan >$KML
	echo clear >$KML
fi

# The tests load the modules they need themselves (test_pmu.h), as under
# the standard kselftest runner, so nothing is loaded for them here; a test
# that cannot load one skips, and an unpinned skip fails the run.

args=""
for t in $(echo "${ST_TESTS:-}" | tr , " "); do
	[ "${t%%:*}" = perf_stat ] && continue
	args="$args -t $t"
done
if [ -z "${ST_TESTS:-}" ]; then
	for c in $(sed -e 's/#.*//' "$H/suites"); do
		args="$args -c $c"
	done
fi
if [ -n "$args" ] && [ "${ST_BENCH:-0}" != 1 ]; then
	echo "@@@ KSELFTEST"
	# ST_TIMEOUT: seconds per test program instead of the suites'
	# settings files (the debug lane's kernels are several times slower).
	if [ "${ST_STOP_AT_FAIL:-0}" = 1 ]; then
		# make mutate: one program at a time, none after the first
		# that fails, which decides the verdict.
		set -- $args
		while [ $# -ge 2 ]; do
			(cd /kselftest && ./run_kselftest.sh ${ST_TIMEOUT:+-o $ST_TIMEOUT} "$1" "$2") |
				tee /tmp/st.out
			shift 2
			grep -q "^not ok" /tmp/st.out && break
		done
	else
		(cd /kselftest && ./run_kselftest.sh ${ST_TIMEOUT:+-o $ST_TIMEOUT} $args)
	fi
	echo "@@@ KSELFTEST-END"
fi

# perf stat as a client of counter sharing, where the guest has perf (the
# arm64 lane), unless ST_TESTS names tests and not perf_stat.
case ",${ST_TESTS:-perf_stat}," in
*perf_stat*)	want_perf_stat=1 ;;
*)		want_perf_stat=0 ;;
esac
if [ -x /usr/bin/perf ] && [ $want_perf_stat = 1 ] && [ "${ST_BENCH:-0}" != 1 ]; then
	echo "@@@ KSELFTEST"
	"$H/perf-stat-share.sh"
	echo "@@@ KSELFTEST-END"
fi

if [ "${ST_BENCH:-0}" = 1 ] && [ -f "$H/benchmarks" ]; then
	# The base kernel of make bench has no test PMU.
	modprobe -q test_perf_pmu 2>/dev/null || true
	sed -e 's/#.*//' "$H/benchmarks" | while read -r b; do
		[ -n "$b" ] || continue
		echo "@@@ BENCH $b"
		"$H/bench/$b"
		echo "@@@ BENCH-END"
	done
fi
if [ -w $KML ]; then
	# An object is reported once it is older than 5 s and still
	# unreferenced after a scan; two scans settle what moved meanwhile.
	sleep 6
	echo scan >$KML
	echo scan >$KML
	echo "@@@ KMEMLEAK"
	cat $KML
	echo "@@@ KMEMLEAK-END"
fi
echo "@@@ END"
