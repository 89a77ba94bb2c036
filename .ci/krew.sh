#!/usr/bin/env bash
# The krew check, on every CI run: takes the archive and the rendered
# manifest that .ci/release.sh built from HEAD, validates the manifest with
# krew's own validator, installs the archive with krew into a temporary
# KREW_ROOT and runs the plugin through kubectl.
#
# Usage: bash .ci/krew.sh
# The release artifacts come from the environment (RELEASE_ARCHIVE,
# RELEASE_MANIFEST, RELEASE_VERSION, RELEASE_COMMIT, as `eval "$(bash
# .ci/release.sh)"` sets them; .ci/run does that once for both packaging
# checks), else this script runs .ci/release.sh itself.
#
# Tools: KUBECTL, KREW and VALIDATE_KREW_MANIFEST from the environment, else
# from testbin/build.sh (which builds kubectl and krew from Go modules into a
# cache; cold, minutes).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'krew: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

[ $# -eq 0 ] || die "unknown argument '$1' (the manifest is rendered by .ci/release.sh; nothing to --update)"

start=$(date +%s)
plugin=valkey-roll
bin=kubectl-valkey_roll

# --- tools -------------------------------------------------------------------
if [ -z "${KUBECTL:-}" ] || [ -z "${KREW:-}" ] || [ -z "${VALIDATE_KREW_MANIFEST:-}" ]; then
  eval "$(bash testbin/build.sh kube krew)"
fi
for tool in KUBECTL KREW VALIDATE_KREW_MANIFEST; do
  [ -x "${!tool:-}" ] || die "$tool is not an executable: '${!tool:-}'"
done

# --- the release artifacts ---------------------------------------------------
if [ -z "${RELEASE_ARCHIVE:-}" ] || [ -z "${RELEASE_MANIFEST:-}" ]; then
  release_env=$(bash .ci/release.sh)
  eval "$release_env"
fi
for f in RELEASE_ARCHIVE RELEASE_MANIFEST; do
  [ -f "${!f:-}" ] || die "$f is not a file: '${!f:-}'"
done
version=${RELEASE_VERSION:?} commit=${RELEASE_COMMIT:?}
sha=$(sha256sum "$RELEASE_ARCHIVE" | cut -d' ' -f1)
grep -q "sha256: $sha\$" "$RELEASE_MANIFEST" ||
  die "$RELEASE_MANIFEST does not carry the sha256 of $RELEASE_ARCHIVE ($sha)"
say "archive $RELEASE_ARCHIVE, sha256 $sha"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# --- krew's validator --------------------------------------------------------
# It wants the file named after the plugin; -skip-install, since installing
# would download the uri.
cp "$RELEASE_MANIFEST" "$tmp/$plugin.yaml"
"$VALIDATE_KREW_MANIFEST" -manifest "$tmp/$plugin.yaml" -skip-install
say "validate-krew-manifest: OK"

# --- install with krew, run through kubectl ----------------------------------
mkdir -p "$tmp/tools"
ln -s "$KREW" "$tmp/tools/kubectl-krew"
ln -s "$KUBECTL" "$tmp/tools/kubectl"
export KREW_ROOT=$tmp/krew
# No look-up of newer krew releases on GitHub.
export KREW_NO_UPGRADE_CHECK=1
# Only krew, kubectl and krew's bin directory on PATH: the plugin found is
# the one krew installed.
run_path=$KREW_ROOT/bin:$tmp/tools:/usr/bin:/bin
PATH=$run_path kubectl krew install --manifest="$RELEASE_MANIFEST" --archive="$RELEASE_ARCHIVE" </dev/null
[ -L "$KREW_ROOT/bin/$bin" ] || [ -x "$KREW_ROOT/bin/$bin" ] || die "krew linked no $KREW_ROOT/bin/$bin"
got=$(PATH=$run_path kubectl valkey-roll version -o json)
printf '%s\n' "$got"
printf '%s' "$got" | grep -q "\"version\": \"$version\"" || die "kubectl valkey-roll version does not say $version"
printf '%s' "$got" | grep -q "\"commit\": \"$commit\"" || die "kubectl valkey-roll version does not say commit $commit"
say "krew installed the archive and kubectl ran it; done in $(($(date +%s) - start))s"
