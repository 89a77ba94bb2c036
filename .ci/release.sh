#!/usr/bin/env bash
# The release build: the one place the release binaries are built. CI's two
# packaging checks (.ci/krew.sh, .ci/install-check.sh) use what it leaves,
# so a CI run pays for one LTO build, not two.
#
#   target/dist/src/        `git archive HEAD`, the source that is built
#   target/dist/build/      its cargo target dir (release profile, both bins)
#   target/dist/out/        the release artifacts:
#     kubectl-valkey-roll_v<version>_<os>_<arch>.tar.gz   the krew archive
#     krew-manifest.yaml    the top-level template, rendered with that
#                           archive's uri and sha256 (the file to put in a
#                           krew index or attach to the release)
#     build-env.sh          the exact build environment (RUSTFLAGS, the
#                           commit stamp, the target dir), for a later
#                           `cargo install` that must reuse this build
#
# Usage: bash .ci/release.sh            build (idempotent: a second run of
#                                       the same commit rebuilds nothing)
#        bash .ci/release.sh --reproduce
#                                       also build the commit a second time
#                                       from another directory and fail unless
#                                       the archive has the same sha256 (a
#                                       second LTO build: for release time,
#                                       not every CI run)
# stdout gets only `export NAME=value` lines (RELEASE_COMMIT, RELEASE_VERSION,
# RELEASE_SRC, RELEASE_TARGET_DIR, RELEASE_ARCHIVE, RELEASE_MANIFEST,
# RELEASE_BUILD_ENV), so `eval "$(bash .ci/release.sh)"` sets them.
#
# What is built is the commit, not the working tree, so uncommitted files
# never reach an archive. The binary's `version` stamp and the archive's
# file times come from HEAD. The archive's sha256 is the same for every
# build of one commit with one toolchain: paths are remapped, entries sorted,
# times fixed, owners zeroed, gzip without name or time. The manifest in the
# repository is a template and never names a sha256, so an ordinary commit
# needs no manifest commit after it.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

say() { printf 'release: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

reproduce=false
case ${1:-} in
  --reproduce) reproduce=true ;;
  '') ;;
  *) die "unknown argument '$1' (--reproduce)" ;;
esac

start=$(date +%s)
bin=kubectl-valkey_roll
template=krew-manifest.yaml
homepage=https://github.com/kubectl-valkey-roll/kubectl-valkey-roll

command -v git >/dev/null || die "git is needed (the commit stamp and the archive's file times)"
commit=$(git rev-parse --verify HEAD 2>/dev/null) || die "no commit found (is this a git checkout?)"
epoch=$(git log -1 --format=%ct HEAD)
version=$(awk -F'"' '/^\[/{pkg = ($0 == "[package]")} pkg && /^version *=/{print $2; exit}' Cargo.toml)
[ -n "$version" ] || die "no version in Cargo.toml [package]"
host=$(rustc -vV | awk '/^host:/{print $2}')
case $host in
  x86_64-unknown-linux-gnu) os=linux arch=amd64 ;;
  aarch64-unknown-linux-gnu) os=linux arch=arm64 ;;
  x86_64-apple-darwin) os=darwin arch=amd64 ;;
  aarch64-apple-darwin) os=darwin arch=arm64 ;;
  *) die "no krew platform known for host $host" ;;
esac
if [ -n "$(git status --porcelain)" ]; then
  say "note: the working tree has uncommitted changes; they are not in the archive (it is built from HEAD)"
fi
say "v$version, commit $commit ($(date -u -d "@$epoch" +%FT%TZ 2>/dev/null || echo "$epoch")), $host"
cargo_home=${CARGO_HOME:-$HOME/.cargo}
archive_name=kubectl-valkey-roll_v${version}_${os}_${arch}.tar.gz

# build WORK: exports HEAD into WORK/src (again only when the commit
# changed: git archive gives every file the commit's time, so cargo sees the
# same source as fresh), builds both binaries into WORK/build, packs the
# archive into WORK/out. Sets `sha`.
build() {
  local work=$1
  local src=$work/src build=$work/build out=$work/out stage=$work/stage
  if [ "$(cat "$src/.release-commit" 2>/dev/null)" != "$commit" ]; then
    rm -rf "$src"
    mkdir -p "$src"
    git archive --format=tar HEAD | tar -x -C "$src"
    printf '%s\n' "$commit" >"$src/.release-commit"
  fi
  mkdir -p "$build" "$out"
  # Paths that would otherwise end up in the binary (panic locations) are
  # remapped, so a checkout anywhere builds the same bytes. The same
  # environment is written out for install-check's `cargo install`: any
  # difference (a flag, the commit stamp, the source path) and cargo would
  # build everything again.
  cat >"$out/build-env.sh" <<EOF
export RUSTFLAGS=$(printf '%q' "--remap-path-prefix=$src=/build/kubectl-valkey-roll --remap-path-prefix=$build=/build/target --remap-path-prefix=$cargo_home=/cargo")
export KUBECTL_VALKEY_ROLL_COMMIT=$commit
export CARGO_TARGET_DIR=$(printf '%q' "$build")
EOF
  # shellcheck disable=SC1091
  (
    source "$out/build-env.sh"
    say "building both release binaries in $build (cold: several minutes on 2 cores) ..."
    cd "$src" && cargo build --release --locked --bins
  )
  local binary=$build/release/$bin
  [ -x "$binary" ] || die "cargo built no $binary"
  [ -x "$build/release/kubectl-valkey-roll" ] || die "cargo built no $build/release/kubectl-valkey-roll"
  say "binary: $(stat -c %s "$binary") bytes ($(du -h "$binary" | cut -f1))"

  rm -rf "$stage"
  mkdir -p "$stage"
  install -m 0755 "$binary" "$stage/$bin"
  install -m 0644 "$src/LICENSE" "$stage/LICENSE"
  # Names listed in byte order; no directory entry.
  (cd "$stage" && LC_ALL=C tar --format=gnu --sort=name --mtime="@$epoch" \
    --owner=0 --group=0 --numeric-owner \
    -cf - LICENSE "$bin") | gzip -n -9 >"$out/$archive_name"
  sha=$(sha256sum "$out/$archive_name" | cut -d' ' -f1)
}

work=$root/target/dist
build "$work"
out=$work/out
say "archive: $out/$archive_name"
say "sha256:  $sha"

if $reproduce; then
  first=$sha
  build "$root/target/dist-reproduce"
  [ "$sha" = "$first" ] || die "a second build of $commit from target/dist-reproduce gave sha256 $sha, not $first: the archive is not reproducible"
  say "reproducible: a second build from another directory gave the same sha256"
  sha=$first
fi

# --- the manifest ------------------------------------------------------------
# The template's placeholders are {{VERSION}}, {{OS}}, {{ARCH}}, {{URI}} and
# {{SHA256}}; its lines starting with `# TEMPLATE` say what it is and are
# not copied.
[ -f "$template" ] || die "no $template (the manifest template) in the checkout"
uri=$homepage/releases/download/v$version/$archive_name
{
  printf '# Rendered by .ci/release.sh from %s at commit %s; do not edit.\n' "$template" "$commit"
  printf '# sha256 is that of %s as built from that commit.\n' "$archive_name"
  git show "HEAD:$template" | grep -v '^# TEMPLATE' |
    sed -e "s|{{VERSION}}|v$version|g" -e "s|{{OS}}|$os|g" -e "s|{{ARCH}}|$arch|g" \
      -e "s|{{URI}}|$uri|g" -e "s|{{SHA256}}|$sha|g"
} >"$out/$template"
if grep -n '{{' "$out/$template" >&2; then
  die "the rendered manifest still has placeholders (above); the template may use only {{VERSION}}, {{OS}}, {{ARCH}}, {{URI}}, {{SHA256}}"
fi
grep -q "sha256: $sha\$" "$out/$template" || die "the rendered manifest does not carry sha256 $sha (does the template have sha256: {{SHA256}}?)"
say "manifest: $out/$template"
say "done in $(($(date +%s) - start))s"

printf 'export RELEASE_COMMIT=%q\n' "$commit"
printf 'export RELEASE_VERSION=%q\n' "$version"
printf 'export RELEASE_SRC=%q\n' "$work/src"
printf 'export RELEASE_TARGET_DIR=%q\n' "$work/build"
printf 'export RELEASE_ARCHIVE=%q\n' "$out/$archive_name"
printf 'export RELEASE_MANIFEST=%q\n' "$out/$template"
printf 'export RELEASE_BUILD_ENV=%q\n' "$out/build-env.sh"
