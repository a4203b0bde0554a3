#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Stage 1: get the base tree and record it in $BUILD/base.env as
# BASE_REPO (a git repository) and BASE_REF (the commit to apply onto).
#
# Default: Linux 7.3.4 from Debian's linux-source-7.3 7.3.4-1~bpo13+1
# (trixie-backports), verified against the pinned sha256 of the .deb and of
# the tarball inside it, turned into a git repository with one commit made
# with a fixed identity and date (so its sha is the same everywhere) and
# tagged $BASE_TAG. It is cached in $PERF_SERIES_CACHE (default
# ~/.cache/perf-series); a second run reuses it.
#
# KERNEL_SRC=/path/to/tree uses a user's own tree instead: a git work tree
# is used at its HEAD, any other directory is imported as one commit.
#
# The package comes from the Debian mirror the machine's own apt
# configuration names (sources.list.d/*.sources, then sources.list), so a
# local mirror or proxy works as it does for apt; BASE_MIRROR=URI overrides.
#
# Dependencies: apt-get, dpkg-deb, xz-utils, git.

. "$(dirname "$0")/lib.sh"

readonly BASE_GIT=$CACHE/base.git

# One commit with a fixed identity and date, so that the base commit's sha
# (and therefore base-commit: in the patches) is reproducible.
import_tree() {
	local repo=$1 tree=$2 msg=$3

	rm -rf "$repo"
	git init -q --bare "$repo"
	cd "$tree"
	# -f: Debian's .gitignore ignores everything at the top level.
	GIT_DIR=$repo GIT_WORK_TREE=. git add -A -f .
	GIT_DIR=$repo GIT_WORK_TREE=. \
	GIT_AUTHOR_NAME=base GIT_AUTHOR_EMAIL=base@localhost \
	GIT_COMMITTER_NAME=base GIT_COMMITTER_EMAIL=base@localhost \
	GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' \
	GIT_COMMITTER_DATE='2026-01-01T00:00:00Z' \
		git commit -q --no-verify -m "$msg"
	cd - >/dev/null
}

# The URI of the first Debian archive entry in apt's sources: an entry with
# a suite that is not a -security one, in deb822 or one-line format.
apt_mirror() {
	local dir

	dir=$(apt-config shell D Dir::Etc/d | sed -n "s/^D='\(.*\)'$/\1/p")
	dir=${dir:-/etc/apt/}
	{
		cat "$dir"sources.list.d/*.sources 2>/dev/null
		echo
		sed -n 's/^[[:space:]]*deb[[:space:]]\+\(\[[^]]*\][[:space:]]\+\)\?\([^[:space:]]\+\)[[:space:]]\+\([^[:space:]]\+\).*/Types: deb\nURIs: \2\nSuites: \3\n/p' \
			"$dir"sources.list 2>/dev/null
	} | awk '
		/^[[:space:]]*#/ { next }
		/^[[:space:]]*$/ { flush(); next }
		/^Types:/ { types = $0 }
		/^URIs:/ { uri = $2 }
		/^Suites:/ { suites = $0 }
		/^Enabled:[[:space:]]*no/ { off = 1 }
		function flush() {
			if (!found && !off && types ~ /[[:space:]]deb([[:space:]]|$)/ &&
			    uri != "" && uri !~ /security/ &&
			    suites ~ /[[:space:]][a-z]+([[:space:]]|$)/) {
				print uri; found = 1
			}
			types = uri = suites = ""; off = 0
		}
		END { flush() }'
}

fetch_debian_base() {
	local deb="$CACHE/${BASE_PKG}_${BASE_VER}_all.deb" apt

	if git --git-dir="$BASE_GIT" rev-parse -q --verify "refs/tags/$BASE_TAG" >/dev/null 2>&1; then
		log "base: cached $BASE_GIT ($BASE_TAG)"
		return 0
	fi
	need_pkgs dpkg-deb:dpkg xz:xz-utils
	mkdir -p "$CACHE"

	# The deb may be cached from a previous run whose import failed.
	if ! echo "$BASE_DEB_SHA256  $deb" | sha256sum -c --quiet - >/dev/null 2>&1; then
		# A private apt state for the backports suite, so the
		# system's sources and lists stay untouched.
		local mirror=${BASE_MIRROR:-$(apt_mirror)}
		[ -n "$mirror" ] ||
			die get-base /etc/apt "no Debian mirror in apt's sources; set BASE_MIRROR=URI"
		apt=$CACHE/apt
		mkdir -p "$apt/parts" "$apt/lists/partial"
		cat >"$apt/parts/base.sources" <<-EOT
			Types: deb
			URIs: $mirror
			Suites: $BASE_SUITE
			Components: main
			Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
		EOT
		local aptopts=(-o "Dir::Etc::SourceParts=$apt/parts"
			       -o Dir::Etc::SourceList=/dev/null
			       -o "Dir::State::Lists=$apt/lists")
		log "base: $BASE_PKG=$BASE_VER from $mirror $BASE_SUITE"
		apt-get "${aptopts[@]}" update >"$LOGS/get-base.log" 2>&1 ||
			die get-base "$LOGS/get-base.log" "apt-get update for $BASE_SUITE failed"
		(cd "$CACHE" && apt-get "${aptopts[@]}" download "$BASE_PKG=$BASE_VER") \
			>>"$LOGS/get-base.log" 2>&1 ||
			die get-base "$LOGS/get-base.log" "apt-get download $BASE_PKG=$BASE_VER failed"
		echo "$BASE_DEB_SHA256  $deb" | sha256sum -c --quiet - >/dev/null 2>&1 ||
			die get-base "$deb" "sha256 mismatch (want $BASE_DEB_SHA256)"
	fi

	tmp=$(mktemp -d "$CACHE/extract.XXXXXX")
	trap 'rm -rf "${tmp:-}"' EXIT
	dpkg-deb -x "$deb" "$tmp/deb" ||
		die get-base "$deb" "dpkg-deb -x failed (corrupt package?)"
	echo "$BASE_TAR_SHA256  $tmp/deb/$BASE_TAR" | sha256sum -c --quiet - >/dev/null 2>&1 ||
		die get-base "$BASE_TAR" "tarball sha256 mismatch (want $BASE_TAR_SHA256)"
	mkdir "$tmp/src"
	tar -C "$tmp/src" --strip-components=1 -xJf "$tmp/deb/$BASE_TAR" ||
		die get-base "$BASE_TAR" "tar extraction failed"
	import_tree "$tmp/base.git" "$tmp/src" \
		"Linux 7.3.4 (Debian $BASE_PKG $BASE_VER)"
	git --git-dir="$tmp/base.git" tag "$BASE_TAG"
	rm -rf "$BASE_GIT"
	mv "$tmp/base.git" "$BASE_GIT"
	log "base: $BASE_GIT at $(git --git-dir="$BASE_GIT" rev-parse "$BASE_TAG")"
}

stage_begin get-base
need_pkgs git:git
if [ -n "${KERNEL_SRC:-}" ]; then
	[ -f "$KERNEL_SRC/kernel/events/core.c" ] ||
		die get-base "$KERNEL_SRC" "KERNEL_SRC is not a kernel tree"
	if git -C "$KERNEL_SRC" rev-parse --show-toplevel >/dev/null 2>&1; then
		repo=$(git -C "$KERNEL_SRC" rev-parse --absolute-git-dir)
		ref=$(git -C "$KERNEL_SRC" rev-parse HEAD)
		[ -z "$(git -C "$KERNEL_SRC" status --porcelain -uno)" ] ||
			log "warning: $KERNEL_SRC has uncommitted changes; using its HEAD $ref"
	else
		repo=$BUILD/user-base.git
		import_tree "$repo" "$KERNEL_SRC" "User tree $KERNEL_SRC"
		ref=$(git --git-dir="$repo" rev-parse HEAD)
	fi
else
	fetch_debian_base
	repo=$BASE_GIT
	ref=$(git --git-dir="$repo" rev-parse "$BASE_TAG")
fi
printf 'BASE_REPO=%q\nBASE_REF=%q\n' "$repo" "$ref" >"$BUILD/base.env"
stage_end get-base
