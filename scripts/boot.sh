#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stage 4: boot the built kernel in QEMU and run the guest harness.
#
#   scripts/boot.sh [LABEL]
#
# Logs go to $BUILD/logs/guest-LABEL/ (console.log: the kernel console on
# ttyS0, arm64: ttyAMA0; tests.log: the harness on ttyS1, arm64: hvc0).
#
# GUEST_ARCH=arm64 boots QEMU's virt machine (-cpu max, its PMUv3 on) with
# instruction counting (-icount shift=0: one instruction is one ns of
# guest time), so that the PMU's instruction and cycle counts are exact:
# one vCPU by default, as counts are exact only on one; ICOUNT=0 boots two
# vCPUs without instruction counting.
#
# The verdict comes from what the guest printed (scripts/results.py),
# never from QEMU's exit status: a panic also ends QEMU with status 0
# because of -no-reboot.
#
# Environment:
#   BOOT_TIMEOUT   hard limit in seconds for the whole guest run (600)
#   QEMU_ACCEL     tcg (default). kvm is opt-in for machines where KVM is
#                  known to boot stock kernels: this project's machines have
#                  a nested KVM that hangs instead (Documentation/testing.rst)
#   ST_TESTS       "collection:test ..." to run only some selftests
#   ST_BENCH=1     run the benchmarks in selftests/benchmarks, not the tests
#   ST_FACTS=1     measure the PMU (selftests/arm64-facts.sh), run nothing else
#   ARM64_REPRO=1  arm64 with what makes multiplexed counts bit-identical
#                  across boots (../shared/notes/arm64-pmu.md): -cpu
#                  cortex-a57, dtb-randomness=off, icount sleep=off,
#                  norandmaps
#   ST_TIMEOUT     seconds per selftest program (the suites' settings files)
#   ST_STOP_AT_FAIL=1  run no selftest program after the first that fails
#   SHARE_SEED, SHARE_MODEL_STEPS, SHARE_MODEL_MS  passed to the sharing
#                  tests: replay a seed; the model checker's length and time
#   PERF_STRESS_PERCENT  passed to the selftests: the length of their
#                  race-hunting loops and random sequences, in percent
#                  (100; below shortens, above lengthens: perf_util.h)
#   GUEST_SMP, GUEST_MEM  vCPUs (x86_64: 2, the minimum for the breakpoint
#                  tests; arm64: 1), MiB
#
# Dependencies: qemu-system-x86 or (arm64) qemu-system-arm, installed on
# demand; python3.

. "$(dirname "$0")/lib.sh"

label=${1:-tip}
out=$LOGS/guest-$label
kernel=$OBJ/$KIMAGE_PATH
rm -rf "$out"

mkdir -p "$out"
if [ "$GUEST_ARCH" = arm64 ]; then
	need_pkgs qemu-system-aarch64:qemu-system-arm python3:python3
	if [ "${ARM64_REPRO:-0}" = 1 ]; then
		qemu=(qemu-system-aarch64 -M virt,dtb-randomness=off -cpu cortex-a57
		      -accel tcg -icount shift=0,sleep=off -smp "${GUEST_SMP:-1}")
	elif [ "${ICOUNT:-1}" = 1 ]; then
		qemu=(qemu-system-aarch64 -M virt -cpu max -accel tcg -icount shift=0
		      -smp "${GUEST_SMP:-1}")
	else
		qemu=(qemu-system-aarch64 -M virt -cpu max -accel tcg,thread=multi
		      -smp "${GUEST_SMP:-2}")
	fi
	qemu+=(
	      -serial "file:$out/console.log"
	      -device virtio-serial-device -chardev "file,id=tests,path=$out/tests.log"
	      -device virtconsole,chardev=tests)
	console=ttyAMA0
else
	need_pkgs qemu-system-x86_64:qemu-system-x86 python3:python3
	case ${QEMU_ACCEL:-tcg} in
	# tsc=reliable: under TCG a vCPU the host does not run for a while
	# fails the clocksource watchdog, which then marks the TSC unstable,
	# and with it the user page's cap_user_time that tests read.
	tcg)	accel=(-accel tcg,thread=multi -cpu max); x86_cmdline=" tsc=reliable" ;;
	kvm)	accel=(-accel kvm -cpu host) ;;
	*)	die boot QEMU_ACCEL "unknown accelerator '${QEMU_ACCEL}' (tcg or kvm)" ;;
	esac
	qemu=(qemu-system-x86_64 "${accel[@]}" -smp "${GUEST_SMP:-2}"
	      -serial "file:$out/console.log" -serial "file:$out/tests.log")
	console=ttyS0
fi
[ -f "$kernel" ] || die boot "$kernel" "missing: run scripts/build.sh first"
[ -f "$INITRAMFS" ] || die boot "$INITRAMFS" "missing: run scripts/build.sh first"

cmdline="console=$console panic=-1 oops=panic${x86_cmdline:-}"
[ "${ARM64_REPRO:-0}" = 1 ] && cmdline+=" norandmaps"
for v in ST_TESTS ST_BENCH ST_FACTS ST_TIMEOUT ST_STOP_AT_FAIL SHARE_SEED SHARE_MODEL_STEPS \
	 SHARE_MODEL_MS PERF_STRESS_PERCENT; do
	# Spaces cannot pass through the kernel command line: use commas.
	[ -n "${!v:-}" ] && cmdline+=" $v=${!v// /,}"
done

stage_begin "boot-$label"
rc=0
timeout --kill-after=10 "${BOOT_TIMEOUT:-600}" \
	"${qemu[@]}" -m "${GUEST_MEM:-1024}" \
	-display none -monitor none -no-reboot \
	-kernel "$kernel" -initrd "$INITRAMFS" -append "$cmdline" \
	>"$out/qemu.log" 2>&1 || rc=$?
[ $rc = 124 ] && echo "timeout after ${BOOT_TIMEOUT:-600}s" >>"$out/qemu.log"
stage_end "boot-$label"

# How many patches of the series the tree holds, for the pinned skips.
k=$(git -C "$SRC" rev-list --count base..HEAD 2>/dev/null || echo 100000)
python3 "$TOP/scripts/results.py" --label "$label" --qemu-rc "$rc" \
	--lane "$GUEST_ARCH" --patches "$k" --skips "$TOP/selftests/skips" "$out"
