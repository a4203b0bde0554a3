# SPDX-License-Identifier: GPL-2.0
# Common definitions for the perf-series pipeline scripts. Sourced, not run.

set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
readonly TOP
readonly BUILD=${BUILD_DIR:-$TOP/build}
readonly LOGS=$BUILD/logs
readonly CACHE=${PERF_SERIES_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/perf-series}

# The base this series is made for.
readonly BASE_PKG=linux-source-7.3
readonly BASE_VER=7.3.4-1~bpo13+1
readonly BASE_SUITE=trixie-backports
readonly BASE_DEB_SHA256=703e369ddd4cce971452f5a593ee55df3a5c10c83caf0fa0df039633ed181ee3
readonly BASE_TAR=usr/src/linux-source-7.3.tar.xz
readonly BASE_TAR_SHA256=76df1affb19f24926949369be1d74b60071c963c598ce8780bddd4bbf0fc3bc4
readonly BASE_TAG=base-7.3.4-1_bpo13+1

# The patched tree (a git repo made by scripts/apply.sh); SRC_DIR=build/edit
# builds the developer's edit tree instead (make quick).
readonly SRC=${SRC_DIR:-$BUILD/linux}
# Each VARIANT has its own outputs; VARIANT=debug adds the fragment
# selftests/debug.config (the debug lane).
readonly VARIANT=${VARIANT:-}
# The guest's architecture: x86_64 (native), or arm64 (cross-built, booted
# on QEMU's virt machine with its emulated PMUv3: the arm64 lane).
readonly GUEST_ARCH=${GUEST_ARCH:-x86_64}
case $GUEST_ARCH in
x86_64)	KARCH=() KIMAGE_TARGET=bzImage
	KIMAGE_PATH=arch/x86/boot/bzImage CROSS= ARCH_SUFFIX= ;;
arm64)	KARCH=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-) KIMAGE_TARGET=Image
	KIMAGE_PATH=arch/arm64/boot/Image CROSS=aarch64-linux-gnu- ARCH_SUFFIX=-arm64 ;;
*)	printf 'ERROR: lib: GUEST_ARCH: %s is not x86_64 or arm64\n' "$GUEST_ARCH" >&2
	exit 1 ;;
esac
readonly KARCH KIMAGE_TARGET KIMAGE_PATH CROSS ARCH_SUFFIX
readonly OUT=$BUILD/out${VARIANT:+-$VARIANT}$ARCH_SUFFIX
readonly OBJ=$OUT/obj				# O= kernel build directory
readonly STOBJ=$OUT/selftests			# selftest build and install
readonly INITRAMFS=$OUT/initramfs.cpio.gz
readonly JOBS=${JOBS:-$(($(nproc) + 1))}

mkdir -p "$LOGS"

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

# die STAGE FILE MESSAGE: the one-line error every stage ends with.
die() {
	printf 'ERROR: %s: %s: %s\n' "$1" "$2" "$3" >&2
	exit 1
}

# Stage timing: stage_begin NAME ... stage_end NAME; times go to
# $LOGS/times (or $TIMES_FILE) so that the test command can print them all
# at the end.
stage_begin() { eval "_stage_t_${1//-/_}=$(date +%s)"; log "stage $1"; }
stage_end() {
	local v="_stage_t_${1//-/_}" t
	t=$(($(date +%s) - ${!v}))
	printf '%-24s %4ds\n' "$1" "$t" >>"${TIMES_FILE:-$LOGS/times}"
	log "stage $1 done in ${t}s"
}

# need_pkgs CMD:PKG...: install the Debian packages providing missing tools.
need_pkgs() {
	local want=() p
	for p in "$@"; do
		command -v "${p%%:*}" >/dev/null 2>&1 || [ -e "${p%%:*}" ] ||
			want+=("${p#*:}")
	done
	[ ${#want[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		die deps "${want[*]}" "missing; install with: sudo apt-get install ${want[*]}"
	fi
	apt_lock
	log "installing ${want[*]}"
	if ! { apt-get update -qq &&
	       DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${want[@]}"; } \
	       >"$LOGS/apt.log" 2>&1; then
		die deps "$LOGS/apt.log" "apt-get install ${want[*]} failed"
	fi
	apt_unlock
}

# apt_lock, apt_unlock: one apt or dpkg change at a time, for the lanes
# that scripts/test.sh builds and boots side by side.
apt_lock() {
	mkdir -p "$CACHE"
	exec {_apt_lock_fd}>"$CACHE/apt.lock"
	flock "$_apt_lock_fd"
}
apt_unlock() { exec {_apt_lock_fd}>&-; }

# The git identity used for commits the pipeline makes itself (scratch
# branches that are never exported).
pipeline_git() {
	GIT_COMMITTER_NAME=${GIT_COMMITTER_NAME:-perf-series} \
	GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL:-perf-series@localhost} \
	GIT_AUTHOR_NAME=${GIT_AUTHOR_NAME:-perf-series} \
	GIT_AUTHOR_EMAIL=${GIT_AUTHOR_EMAIL:-perf-series@localhost} \
		git "$@"
}

# The patches named in series, in order (comments and blank lines dropped),
# as paths under patches/: POSTING/NNNN-subject.patch.
series_patches() {
	sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$TOP/series" | awk 'NF'
}

# postings_config TREE BRANCH: record in TREE's git config what
# export-series.sh needs to write patches/ again from BRANCH, which holds
# the series' patches on tag base: for each posting (a directory of
# patches/), posting.NAME.first, the subject of its first commit, and
# posting.NAME.description, its cover letter as the branch description
# that format-patch --cover-from-description=subject turns back into it.
postings_config() {
	local tree=$1 branch=$2 d name k=0 key
	local -a subjects

	mapfile -t subjects < <(git -C "$tree" log --reverse --format=%s "base..$branch")
	for key in $(git -C "$tree" config --name-only --get-regexp '^posting\.' || true); do
		git -C "$tree" config --unset-all "$key"
	done
	for d in "$TOP"/patches/*/; do
		name=$(basename "$d")
		[ -f "$d/0000-cover-letter.patch" ] ||
			die postings "patches/$name" "has no 0000-cover-letter.patch"
		[ "$k" -lt ${#subjects[@]} ] ||
			die postings "patches/$name" "starts after the last commit of $branch"
		git -C "$tree" config "posting.$name.first" "${subjects[k]}"
		git -C "$tree" config "posting.$name.description" \
			"$(python3 "$TOP/scripts/cover.py" to-description "$d/0000-cover-letter.patch")"
		k=$((k + $(series_patches | grep -c "^$name/" || true)))
	done
}

# TAP results of the checks a script makes: tap_check pass|fail|skip NAME
# [REASON] prints one line and counts it in tap_pass, tap_fail, tap_skip.
tap_n=0 tap_pass=0 tap_fail=0 tap_skip=0
tap_check() {
	tap_n=$((tap_n + 1))
	case $1 in
	pass) tap_pass=$((tap_pass + 1)); echo "ok $tap_n $2${3:+ # $3}" ;;
	skip) tap_skip=$((tap_skip + 1)); echo "ok $tap_n $2 # SKIP $3" ;;
	*)    tap_fail=$((tap_fail + 1)); echo "not ok $tap_n $2${3:+ # $3}" ;;
	esac
}

# tap_check_new NAME BEFORE AFTER REASON: pass if the sorted file AFTER has
# no line that BEFORE lacks; else show those lines and fail with REASON.
# Compiler diagnostics from stdin without line and column numbers, sorted:
# what tap_check_new compares between two builds.
norm_warnings() {
	{ grep -E '(warning|error):' || true; } |
		sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' | sort
}

tap_check_new() {
	local new

	new=$(comm -13 "$2" "$3")
	if [ -z "$new" ]; then
		tap_check pass "$1"
	else
		sed 's/^/#   /' <<<"$new"
		tap_check fail "$1" "$4"
	fi
}

# Whether sparse can check the tree in $1: kbuild's own test. Kbuild only
# warns and goes on without sparse when it cannot, so a C=1 build would
# pass unchecked; callers report a skip instead.
sparse_usable() {
	[ "$(sh "$1/scripts/checker-valid.sh" sparse -m64 2>/dev/null)" = 1 ]
}
sparse_why_not="sparse $(sparse --version 2>/dev/null || echo missing) cannot check this kernel (kbuild's scripts/checker-valid.sh); W=1 still runs"

# base_worktree DIR: DIR is a worktree of $SRC's repository at the tag base,
# clean: an existing one is reset, a missing or broken one (e.g. after
# scripts/apply.sh re-cloned $SRC) is made anew.
base_worktree() {
	if git -C "$1" rev-parse -q --verify HEAD >/dev/null 2>&1; then
		git -C "$1" checkout -q -f --detach base
		git -C "$1" clean -q -ffdx
	else
		rm -rf "$1"
		git -C "$SRC" worktree prune
		git -C "$SRC" worktree add -q --detach "$1" base
	fi
}

# The commit a record of results names (scripts/record-results.py): $TOP's
# HEAD, short, and "(dirty)" if tracked files have uncommitted changes.
head_commit() {
	local c

	c=$(git -C "$TOP" rev-parse --short HEAD 2>/dev/null) || { echo unknown; return 0; }
	git -C "$TOP" diff --quiet HEAD -- 2>/dev/null || c+=" (dirty)"
	echo "$c"
}
