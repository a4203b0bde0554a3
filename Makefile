# SPDX-License-Identifier: GPL-2.0
#
# make          get the base, apply the series, build kernel + selftests
# make test     the above, then boot, run the selftests on the tip, x86
#               and arm64, and check the patches (checkpatch, round trip)
#               (its record: Documentation/results/test.rst)
# make prefixes build and test every prefix of the series
# See README for the rest; make debug and make bench write their records
# too (Documentation/testing.rst, "Records").

SHELL := /bin/bash
.PHONY: all build test test-arm64 prefixes quick edit export bench bench-arm64 arm64-facts debug matrix mutate clean

all: build

build:
	@scripts/get-base.sh && scripts/apply.sh && scripts/build.sh

test:
	@scripts/test.sh

# Every prefix of the series: built, W=1 and sparse on what it touches, and
# its selftests in the guest (record: Documentation/results/prefixes.rst).
prefixes:
	@PREFIXES=1 scripts/test.sh

# The whole suite on arm64: the tip cross-built for arm64 and booted on
# QEMU's virt machine, whose PMUv3 the kernel's own driver runs.
test-arm64:
	@GUEST_ARCH=arm64 scripts/test.sh

# Developer loop: build and boot the edit tree (make edit) as it is.
quick:
	@SRC_DIR=$(CURDIR)/build/edit VARIANT=edit scripts/build.sh && \
	 SRC_DIR=$(CURDIR)/build/edit VARIANT=edit scripts/boot.sh edit

edit:
	@scripts/edit-series.sh

export:
	@scripts/export-series.sh

clean:
	rm -rf build

# The debug lane: the same guest run on a KASAN + lockdep + kmemleak kernel,
# with the model checker run 100 s per variant instead of 12 s.
debug:
	@env VARIANT=debug GUEST_MEM=2048 BOOT_TIMEOUT=2400 ST_TIMEOUT=1200 \
		SHARE_MODEL_STEPS=$${SHARE_MODEL_STEPS:-1000000} SHARE_MODEL_MS=$${SHARE_MODEL_MS:-100000} \
		scripts/test.sh

# One-line mutations of sharing (selftests/mutations), one at a time, against
# the sharing selftests; record: Documentation/results/mutate.rst.
mutate:
	@scripts/mutate.py

# Every prefix built for x86_64 allnoconfig, i386 and arm64, W=1 and sparse.
matrix:
	@scripts/matrix.sh

# Benchmarks, base kernel vs series kernel in one run; bench-arm64 on the
# arm64 guest, with instruction counting.
bench:
	@scripts/bench.sh

bench-arm64:
	@GUEST_ARCH=arm64 scripts/bench.sh

# What ../shared/notes/arm64-pmu.md says of QEMU's PMUv3, measured again
# on the arm64 tip in five boots (Documentation/results/arm64-facts.rst).
arm64-facts:
	@scripts/arm64-facts.sh
