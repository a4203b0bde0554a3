#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The test command (make test; what CI runs): the whole pipeline from
# nothing to a verdict.
#
#   get-base -> apply -> build -> boot the tip and run the selftests and
#   KUnit in the guest -> series checks (scripts/check-series.sh)
#
# Prints a TAP line per test and per check, the time of each stage, and
# last a line "N passed, N failed, N skipped". Exits non-zero if anything
# failed.
#
# Environment: SKIP_CHECKS=1 stops after the guest run of the tip;
# VARIANT=debug (make debug) builds and boots the debug lane's kernel
# instead, without the series checks; see scripts/boot.sh for the guest's
# knobs.

. "$(dirname "$0")/lib.sh"

rm -f "$LOGS/times" "$LOGS/checks-summary"
start=$(date +%s)

# finish PASSED FAILED SKIPPED: the stage times and the closing line.
finish() {
	echo "# stage times:"
	sed 's/^/#   /' "$LOGS/times" 2>/dev/null || true
	echo "#   total                    $(($(date +%s) - start))s"
	echo "$1 passed, $2 failed, $3 skipped"
	[ "$2" = 0 ]
	exit
}

for s in get-base apply build; do
	if ! "$TOP/scripts/$s.sh"; then
		echo "not ok 1 stage $s # see the ERROR line above and $LOGS"
		finish 0 1 0
	fi
done

label=${VARIANT:+$VARIANT-}tip
"$TOP/scripts/boot.sh" "$label" || true
if [ -f "$LOGS/guest-$label/summary" ]; then
	read -r p f k <"$LOGS/guest-$label/summary"
else
	echo "not ok - stage boot # see the ERROR line above and $LOGS"
	p=0 f=1 k=0
fi

if [ "${SKIP_CHECKS:-0}" != 1 ] && [ -z "$VARIANT" ]; then
	"$TOP/scripts/check-series.sh" || true
	if [ -f "$LOGS/checks-summary" ]; then
		read -r cp cf ck <"$LOGS/checks-summary"
	else
		echo "not ok - series checks did not finish, see above"
		cp=0 cf=1 ck=0
	fi
	p=$((p + cp)) f=$((f + cf)) k=$((k + ck))
fi
finish "$p" "$f" "$k"
