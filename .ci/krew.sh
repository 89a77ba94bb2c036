#!/usr/bin/env bash
# The krew release check: builds the host's archive reproducibly, renders the
# plugin manifest with its sha256, checks it against the committed
# krew-manifest.yaml, validates it with krew's own validator, installs the
# archive with krew into a temporary KREW_ROOT and runs the plugin through
# kubectl.
#
# Usage: bash .ci/krew.sh            check (CI): fails when krew-manifest.yaml is stale
#        bash .ci/krew.sh --update   write the rendered manifest to krew-manifest.yaml
#
# What is built is the commit, not the working tree: HEAD is exported with
# `git archive` and built there, so uncommitted files never reach an archive.
# The binary, the file times in the archive and the `version` stamp all come
# from one commit: the newest one that changed anything but
# krew-manifest.yaml (src/build.rs), so committing a refreshed manifest does
# not make it stale again. The archive's sha256 is the same for every build
# of that commit with this toolchain: paths are remapped, entries sorted,
# times fixed, owners zeroed, gzip without name or time.
#
# Tools: KUBECTL, KREW and VALIDATE_KREW_MANIFEST from the environment, else
# from testbin/build.sh (which builds kubectl and krew from Go modules into a
# cache; cold, minutes).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
root=$PWD

say() { printf 'krew: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

update=false
case ${1:-} in
  --update) update=true ;;
  '') ;;
  *) die "unknown argument '$1' (--update)" ;;
esac

start=$(date +%s)
plugin=valkey-roll
bin=kubectl-valkey_roll
manifest=krew-manifest.yaml
homepage=https://github.com/kubectl-valkey-roll/kubectl-valkey-roll

# --- tools -------------------------------------------------------------------
if [ -z "${KUBECTL:-}" ] || [ -z "${KREW:-}" ] || [ -z "${VALIDATE_KREW_MANIFEST:-}" ]; then
  eval "$(bash testbin/build.sh kube krew)"
fi
for tool in KUBECTL KREW VALIDATE_KREW_MANIFEST; do
  [ -x "${!tool:-}" ] || die "$tool is not an executable: '${!tool:-}'"
done

# --- what to build -----------------------------------------------------------
command -v git >/dev/null || die "git is needed (the commit stamp and the archive's file times)"
pathspec=(-- . ":(exclude)$manifest")
commit=$(git log -1 --format=%H "${pathspec[@]}")
epoch=$(git log -1 --format=%ct "${pathspec[@]}")
[ -n "$commit" ] && [ -n "$epoch" ] || die "no commit found (is this a git checkout?)"
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
if [ -n "$(git status --porcelain "${pathspec[@]}")" ]; then
  say "note: the working tree has uncommitted changes; they are not in the archive (it is built from HEAD)"
fi
say "v$version, commit $commit ($(date -u -d "@$epoch" +%FT%TZ 2>/dev/null || echo "$epoch")), $host"

work=$root/target/krew
src=$work/src
build=$work/build
out=$work/out
rm -rf "$src" "$out"
mkdir -p "$src" "$build" "$out"
git archive --format=tar HEAD | tar -x -C "$src"

# --- build -------------------------------------------------------------------
# Paths that would otherwise end up in the binary (panic locations) are
# remapped, so a checkout anywhere builds the same bytes.
cargo_home=${CARGO_HOME:-$HOME/.cargo}
export RUSTFLAGS="--remap-path-prefix=$src=/build/kubectl-valkey-roll --remap-path-prefix=$build=/build/target --remap-path-prefix=$cargo_home=/cargo"
export KUBECTL_VALKEY_ROLL_COMMIT=$commit
export CARGO_TARGET_DIR=$build
say "building the release binary (cold: several minutes on 2 cores) ..."
(cd "$src" && cargo build --release --locked --bin "$bin")
binary=$build/release/$bin
[ -x "$binary" ] || die "cargo built no $binary"
say "binary: $(stat -c %s "$binary") bytes ($(du -h "$binary" | cut -f1))"

# --- archive -----------------------------------------------------------------
archive_name=kubectl-valkey-roll_v${version}_${os}_${arch}.tar.gz
stage=$work/stage
rm -rf "$stage"
mkdir -p "$stage"
install -m 0755 "$binary" "$stage/$bin"
install -m 0644 "$src/LICENSE" "$stage/LICENSE"
# Names listed in byte order; no directory entry.
(cd "$stage" && LC_ALL=C tar --format=gnu --sort=name --mtime="@$epoch" \
  --owner=0 --group=0 --numeric-owner \
  -cf - LICENSE "$bin") | gzip -n -9 >"$out/$archive_name"
sha=$(sha256sum "$out/$archive_name" | cut -d' ' -f1)
say "archive: $out/$archive_name"
say "sha256:  $sha"

# --- manifest ----------------------------------------------------------------
uri=$homepage/releases/download/v$version/$archive_name
cat >"$out/$manifest" <<EOF
# Rendered by .ci/krew.sh from commit $commit; do not edit by hand.
# The sha256 is that of the archive .ci/krew.sh builds from that commit
# (reproducible: same commit and toolchain, same bytes).
apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: $plugin
spec:
  version: v$version
  homepage: $homepage
  shortDescription: Tell a slow Valkey roll from a jammed one, steer permits
  description: |
    Reads the staged-roll state of valkey-operator ValkeyClusters and says,
    for every node, whether it is waiting its turn or is a permit holder that
    is stuck, with the evidence (CrashLoopBackOff, image pull errors, OOM,
    unschedulable pods, superseded StatefulSet pods, held too long). The
    cluster verdict (Converged, Rolling, Waiting, Stalled, Jammed, Conflict)
    is the loudest thing on the screen. It can grant, revoke or force a roll
    permit by hand, safely: every write carries the resourceVersion it was
    decided on, is serialised by a Lease, recorded in an Event, and printed
    with the command that undoes it.

      kubectl valkey-roll status
      kubectl valkey-roll explain cache-1-1
      kubectl valkey-roll grant cache-0-0 --reason "controller down"
      kubectl valkey-roll wait cache --timeout 30m
  caveats: |
    Reading needs get, list and watch on valkeyclusters and valkeynodes
    (valkey.io), statefulsets and deployments (apps), pods and events.
    Steering (grant, revoke, force) also needs patch on valkeynodes, create
    on events, and get, create, update and delete on leases
    (coordination.k8s.io). The README lists them as a Role.

    Shell completion of cluster and node names through kubectl (>= 1.26)
    needs the kubectl_complete-valkey_roll script on PATH; see the README.
  platforms:
  - selector:
      matchLabels:
        os: $os
        arch: $arch
    uri: $uri
    sha256: $sha
    files:
    - from: $bin
      to: .
    - from: LICENSE
      to: .
    bin: $bin
EOF

if $update; then
  cp "$out/$manifest" "$manifest"
  say "wrote $manifest; commit it: git add $manifest && git commit -m 'krew manifest for $commit'"
elif ! diff -u "$manifest" "$out/$manifest" >&2; then
  die "the committed $manifest is not the one rendered for commit $commit (diff above); refresh it with: bash .ci/krew.sh --update, then commit $manifest"
else
  say "$manifest matches the rendered manifest"
fi

# --- krew's validator --------------------------------------------------------
# It wants the file named after the plugin; -skip-install, since installing
# would download the uri.
cp "$out/$manifest" "$out/$plugin.yaml"
"$VALIDATE_KREW_MANIFEST" -manifest "$out/$plugin.yaml" -skip-install
say "validate-krew-manifest: OK"

# --- install with krew, run through kubectl ----------------------------------
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tools"
ln -s "$KREW" "$tmp/tools/kubectl-krew"
ln -s "$KUBECTL" "$tmp/tools/kubectl"
export KREW_ROOT=$tmp/krew
# No look-up of newer krew releases on GitHub.
export KREW_NO_UPGRADE_CHECK=1
# Only krew, kubectl and krew's bin directory on PATH: the plugin found is
# the one krew installed.
run_path=$KREW_ROOT/bin:$tmp/tools:/usr/bin:/bin
PATH=$run_path kubectl krew install --manifest="$out/$manifest" --archive="$out/$archive_name" </dev/null
[ -L "$KREW_ROOT/bin/$bin" ] || [ -x "$KREW_ROOT/bin/$bin" ] || die "krew linked no $KREW_ROOT/bin/$bin"
got=$(PATH=$run_path kubectl valkey-roll version -o json)
printf '%s\n' "$got"
printf '%s' "$got" | grep -q "\"version\": \"$version\"" || die "kubectl valkey-roll version does not say $version"
printf '%s' "$got" | grep -q "\"commit\": \"$commit\"" || die "kubectl valkey-roll version does not say commit $commit"
say "krew installed the archive and kubectl ran it; done in $(($(date +%s) - start))s"
