#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stage 3: build what the guest runs, from the tree scripts/apply.sh made:
#   config     tinyconfig + kernel-config + selftests/$GUEST_ARCH.config
#              (+ selftests/$VARIANT.config, e.g. debug.config for the debug
#              lane; + selftests/lockdep.config for the test kernels),
#              checked symbol by symbol
#   kernel     bzImage (arm64: Image) and modules, out of tree in $OBJ,
#              through ccache (its cache in $CACHE/ccache)
#   selftests  headers_install, then tools/testing/selftests/perf_events
#              built statically and installed with the kselftest runner
#   perf       arm64 only: tools/perf built statically with the fewest
#              features perf stat needs, for the perf stat test
#   initramfs  busybox-static + the guest harness in selftests/ + the tests
#
# GUEST_ARCH=arm64 cross-builds all of it with Debian's aarch64 gcc; the
# guest's busybox is Debian's busybox-static:arm64 (apt-get download, kept
# in the cache; nothing arm64 is installed).
#
# Every step is incremental: re-running after an edit rebuilds only what
# changed. PREFIX_CHECK=1 tolerates fragment symbols that the tree does not
# define (an earlier prefix of the series may not have them yet).
#
# Dependencies: gcc make flex bison bc libelf-dev libssl-dev cpio rsync
# busybox-static dwarves python3 kmod ccache (installed on demand).

. "$(dirname "$0")/lib.sh"

need_pkgs gcc:gcc make:make flex:flex bison:bison bc:bc cpio:cpio \
	  rsync:rsync /usr/include/libelf.h:libelf-dev \
	  /usr/include/openssl/ssl.h:libssl-dev /bin/busybox:busybox-static \
	  pahole:dwarves python3:python3 /sbin/depmod:kmod ccache:ccache
[ "$GUEST_ARCH" = arm64 ] &&
	need_pkgs aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu \
		  /usr/aarch64-linux-gnu/lib/libc.a:libc6-dev-arm64-cross

[ -e "$SRC/.git" ] || die build "$SRC" "missing: run scripts/apply.sh first"

# A fixed build identity: a relink of unchanged objects gives the same
# image, so scripts/check-series.sh can tell that a prefix's kernel did
# not change.
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026' \
       KBUILD_BUILD_VERSION=1 KBUILD_BUILD_USER=perf-series KBUILD_BUILD_HOST=qemu
KMAKE=(make -C "$SRC" O="$OBJ" -j"$JOBS" "${KARCH[@]}")
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
# Relative paths, and no working directory in the hash: trees and object
# directories under any $BUILD share cache entries.
export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1
# Depend mode: a miss compiles once and hashes the headers the compiler
# lists (-MMD), instead of running the preprocessor first. Measured
# 2026-12-06 on kernel/ and mm/ of the x86_64 config with an empty cache:
# gcc alone 50 s, through ccache 76 s, through ccache in depend mode 58 s.
export CCACHE_DEPEND=1
KMAKE+=(CC="ccache ${CROSS}gcc")

fragments=("$TOP/kernel-config" "$TOP/selftests/$GUEST_ARCH.config")
[ -n "$VARIANT" ] && [ -f "$TOP/selftests/$VARIANT.config" ] &&
	fragments+=("$TOP/selftests/$VARIANT.config")
# The test kernels (make test, its prefixes, make quick, make mutate)
# check locking; the benchmarks' kernels (VARIANT base and bench) do not,
# so that they measure what users run.
case $VARIANT in
""|edit|mutate)	fragments+=("$TOP/selftests/lockdep.config") ;;
esac

# Show the first errors of a failed make, then die naming the log.
make_or_die() {
	local what=$1 logf=$2
	shift 2
	if ! "$@" >"$logf" 2>&1; then
		grep -m 20 -iE 'error' "$logf" >&2 || tail -n 20 "$logf" >&2
		die build "$logf" "$what failed"
	fi
}

# Generate the config in a scratch directory and copy it to $OBJ only if it
# changed, so that an unchanged config never triggers a rebuild.
# What the config depends on: the fragments and every Kconfig file.
config_key() {
	{ cat "${fragments[@]}"; echo "${PREFIX_CHECK:-0}"
	  git -C "$SRC" ls-files -s -- '*Kconfig*'
	  git -C "$SRC" diff HEAD -- '*Kconfig*'; } | sha256sum | cut -d' ' -f1
}

build_config() {
	local kc=$OUT/kconfig f line sym bad=0 key

	key=$(config_key)
	if [ -f "$OBJ/.config" ] && [ "$(cat "$OUT/config.key" 2>/dev/null)" = "$key" ]; then
		log "config unchanged"
		return 0
	fi
	rm -f "$OUT/config.key"
	mkdir -p "$kc" "$OBJ"
	make_or_die tinyconfig "$LOGS/config.log" make -C "$SRC" O="$kc" "${KARCH[@]}" tinyconfig
	make_or_die merge_config "$LOGS/config.log" env "${KARCH[@]}" \
		"$SRC/scripts/kconfig/merge_config.sh" -m -O "$kc" "$kc/.config" "${fragments[@]}"
	make_or_die olddefconfig "$LOGS/config.log" make -C "$SRC" O="$kc" "${KARCH[@]}" olddefconfig

	# merge_config.sh only warns when a symbol drops out: fail instead.
	for f in "${fragments[@]}"; do
		while read -r line; do
			case "$line" in
			CONFIG_*=n)	sym=${line%%=*}
					grep -q "^$sym=" "$kc/.config" || continue ;;
			CONFIG_*=*)	sym=${line%%=*}
					grep -qxF "$line" "$kc/.config" && continue ;;
			*)		continue ;;
			esac
			if [ "${PREFIX_CHECK:-0}" = 1 ] &&
			   ! grep -rqsx --include='Kconfig*' "config ${sym#CONFIG_}" "$SRC"; then
				continue
			fi
			printf '  %s: wanted %s, got %s\n' "${f#$TOP/}" "$line" \
				"$(grep -E "^$sym=|^# $sym is not set" "$kc/.config" || echo unset)" >&2
			bad=1
		done < "$f"
	done
	[ $bad = 0 ] || die build "kernel-config" "symbols dropped out of the final .config"
	cmp -s "$kc/.config" "$OBJ/.config" || cp "$kc/.config" "$OBJ/.config"
	echo "$key" >"$OUT/config.key"
}

# Skip make when the kernel built last is still right: the config is the
# same and, since the commit it was built from, only paths changed (in
# commits or in the work tree) that do not go into the kernel.
build_kernel() {
	local built

	built=$(cat "$OUT/kernel.built" 2>/dev/null || true)
	if [ -n "$built" ] && [ -f "$OBJ/$KIMAGE_PATH" ] &&
	   [ "${built%% *}" = "$(cat "$OUT/config.key")" ] &&
	   [ -z "$(git -C "$SRC" diff --name-only "${built##* }" -- . \
		':!tools' ':!Documentation' ':!MAINTAINERS' 2>/dev/null || echo x)" ]; then
		log "kernel unchanged since ${built##* }"
		return 0
	fi
	rm -f "$OUT/kernel.built"
	make_or_die "kernel build" "$LOGS/build-kernel.log" "${KMAKE[@]}" "$KIMAGE_TARGET" modules
	rm -rf "$OUT/modroot"
	make_or_die modules_install "$LOGS/build-kernel.log" \
		"${KMAKE[@]}" INSTALL_MOD_PATH="$OUT/modroot" modules_install
	# Only a committed state can be compared against later.
	[ -n "$(git -C "$SRC" status --porcelain -uno)" ] ||
		echo "$(cat "$OUT/config.key") $(git -C "$SRC" rev-parse HEAD)" >"$OUT/kernel.built"
}

build_selftests() {
	make_or_die headers_install "$LOGS/build-selftests.log" "${KMAKE[@]}" headers_install
	rm -rf "$STOBJ/install"
	# The Makefile's own flags plus -static (the guest has no libc);
	# the environment's CFLAGS is appended to, not replaced.
	CFLAGS="${CFLAGS:+$CFLAGS }-static" make_or_die "selftest build" "$LOGS/build-selftests.log" \
		make -C "$SRC/tools/testing/selftests" "${KARCH[@]}" TARGETS=perf_events \
		O="$STOBJ/out" KHDR_INCLUDES="-isystem $OBJ/usr/include" \
		INSTALL_PATH="$STOBJ/install" install
}

# perf for the arm64 guest: static, every optional library off (they are
# not installed for arm64, and perf stat needs none); only the perf binary
# (the dlfilters do not link statically); NO_RUST: the host's rustc cannot
# cross-build.
build_perf() {
	[ "$GUEST_ARCH" = arm64 ] || return 0
	local no=(NO_RUST NO_LIBELF NO_LIBTRACEEVENT NO_JEVENTS NO_LIBBPF NO_LIBPYTHON
		  NO_SLANG NO_GTK2 NO_LIBNUMA NO_LIBUNWIND NO_LIBDW NO_ZLIB NO_LZMA
		  NO_LIBZSTD NO_LIBCAP NO_BABELTRACE2 NO_CAPSTONE NO_LIBLLVM NO_LIBPFM4
		  NO_LIBDEBUGINFOD NO_SDT NO_JVMTI NO_SHELLCHECK NO_DEMANGLE
		  NO_LIBCRYPTO NO_AUXTRACE)

	mkdir -p "$OUT/perf"
	make_or_die "perf build" "$LOGS/build-perf.log" \
		make -C "$SRC/tools/perf" -j"$JOBS" "${KARCH[@]}" O="$OUT/perf" \
		CC="ccache ${CROSS}gcc" \
		LDFLAGS=-static WERROR=0 BUILD_BPF_SKEL=0 "${no[@]/%/=1}" perf
}

# The guest's static busybox: the host's, or Debian's arm64 build.
guest_busybox() {
	local dir=$CACHE/busybox-arm64 deb

	if [ "$GUEST_ARCH" = x86_64 ]; then
		echo /bin/busybox
		return
	fi
	if [ ! -x "$dir/bin/busybox" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		if ! dpkg --print-foreign-architectures | grep -qx arm64; then
			[ "$(id -u)" = 0 ] ||
				die build busybox "run as root, or: dpkg --add-architecture arm64 && apt-get update"
			apt_lock
			{ dpkg --add-architecture arm64 && apt-get update -qq; } >"$LOGS/apt.log" 2>&1 ||
				die build "$LOGS/apt.log" "adding the arm64 architecture to apt failed"
			apt_unlock
		fi
		(cd "$dir" && apt-get download -q busybox-static:arm64) >"$LOGS/apt.log" 2>&1 ||
			die build "$LOGS/apt.log" "apt-get download busybox-static:arm64 failed"
		deb=$(ls "$dir"/busybox-static_*_arm64.deb)
		dpkg-deb -x "$deb" "$dir" && rm -f "$deb" ||
			die build "$deb" "cannot unpack"
	fi
	echo "$dir/bin/busybox"
}

build_initramfs() {
	local root=$OUT/rootfs

	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,root,etc}
	cp "$(guest_busybox)" "$root/bin/busybox"
	cp -r "$TOP/selftests/." "$root/selftests-harness"
	mv "$root/selftests-harness/init" "$root/init"
	cp -r "$STOBJ/install" "$root/kselftest"
	# The benchmarks (selftests/bench/*.c), for ST_BENCH=1, and the tools
	# the guest scripts run (selftests/tools/*.c).
	for d in bench tools; do
		mkdir -p "$root/selftests-harness/$d"
		for f in "$TOP/selftests/$d"/*.c; do
			[ -e "$f" ] || continue
			"${CROSS}gcc" -static -O2 -Wall -isystem "$OBJ/usr/include" -o \
				"$root/selftests-harness/$d/$(basename "$f" .c)" "$f" -lpthread \
				>>"$LOGS/build-selftests.log" 2>&1 ||
				die build "$f" "build failed, see $LOGS/build-selftests.log"
		done
		rm -f "$root/selftests-harness/$d"/*.c
	done
	[ -d "$OUT/modroot/lib" ] && cp -r "$OUT/modroot/lib" "$root/lib"
	if [ "$GUEST_ARCH" = arm64 ]; then
		cp "$OUT/perf/perf" "$root/usr/bin/perf"
		"${CROSS}strip" "$root/usr/bin/perf"
	fi
	echo "root:x:0:0:root:/root:/bin/sh" >"$root/etc/passwd"
	echo "nobody:x:65534:65534:nobody:/:/bin/sh" >>"$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"
	(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet | gzip -1) \
		>"$INITRAMFS.tmp"
	mv "$INITRAMFS.tmp" "$INITRAMFS"
}

stage_begin config;	build_config;	 stage_end config
stage_begin kernel;	build_kernel;	 stage_end kernel
stage_begin selftests;	build_selftests; stage_end selftests
stage_begin perf;	build_perf;	 stage_end perf
stage_begin initramfs;	build_initramfs; stage_end initramfs
log "tree:   $SRC"
log "kernel: $OBJ/$KIMAGE_PATH"
log "initramfs: $INITRAMFS"
