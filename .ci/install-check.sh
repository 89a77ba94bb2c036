#!/usr/bin/env bash
# The `cargo install` check: installs the crate as a user would, into a
# temporary root, and runs it by both names through a real kubectl (the one
# testbin/build.sh builds for the tests):
#
#   kubectl valkey-roll version     kubectl looks up kubectl-valkey_roll
#   kubectl-valkey-roll version     the program run directly
#   kubectl plugin list             lists both, with no warning
#   kubectl __complete valkey-roll  plugin completion through
#                                   completions/kubectl_complete-valkey_roll
#
# Usage: bash .ci/install-check.sh   (KUBECTL from the environment, else
# testbin/build.sh).
#
# It installs the commit .ci/release.sh built (RELEASE_SRC,
# RELEASE_BUILD_ENV from the environment, else it runs .ci/release.sh): `cargo
# install --path <that source> --target-dir <its target dir>` in the same
# build environment, so cargo finds both binaries already built and only
# installs them. The `cargo install` path is proven (both [[bin]] targets are
# installed under their names, from the crate's own manifest) without a
# second LTO build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { printf 'install-check: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

start=$(date +%s)
if [ -z "${KUBECTL:-}" ]; then
  eval "$(bash testbin/build.sh kube)"
fi
[ -x "${KUBECTL:-}" ] || die "KUBECTL is not an executable: '${KUBECTL:-}'"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -z "${RELEASE_SRC:-}" ] || [ -z "${RELEASE_BUILD_ENV:-}" ]; then
  release_env=$(bash .ci/release.sh)
  eval "$release_env"
fi
[ -f "${RELEASE_SRC:-}/Cargo.toml" ] || die "RELEASE_SRC has no Cargo.toml: '${RELEASE_SRC:-}'"
[ -f "${RELEASE_BUILD_ENV:-}" ] || die "RELEASE_BUILD_ENV is not a file: '${RELEASE_BUILD_ENV:-}'"

say "cargo install --path $RELEASE_SRC --root $tmp/root (reusing the release build) ..."
install_log=$tmp/cargo-install.log
if ! (
  # shellcheck disable=SC1090
  source "$RELEASE_BUILD_ENV"
  cargo install --locked --path "$RELEASE_SRC" --root "$tmp/root" --target-dir "$CARGO_TARGET_DIR"
) 2>&1 | tee "$install_log" >&2; then
  die "cargo install failed (output above)"
fi
# Compiling the crate again would mean the environment differs from the
# release build's (two LTO builds again): say so loudly.
if grep -q 'Compiling kubectl-valkey-roll' "$install_log"; then
  die "cargo install compiled the crate again instead of reusing the release build in \$CARGO_TARGET_DIR"
fi
for name in kubectl-valkey-roll kubectl-valkey_roll; do
  [ -x "$tmp/root/bin/$name" ] || die "cargo install did not install $name"
done
cp completions/kubectl_complete-valkey_roll "$tmp/root/bin/"

# kubectl on a directory of its own, so that PATH holds only what this
# check installed (another kubectl-* on the machine cannot answer for ours).
mkdir -p "$tmp/kubectl"
ln -s "$KUBECTL" "$tmp/kubectl/kubectl"
run_path=$tmp/root/bin:$tmp/kubectl
# Every command below runs with exactly this PATH (no shell fallbacks).
run() { env PATH="$run_path" "$@"; }

expect_version() { # what output
  printf '%s' "$2" | grep -q '"protocols"' || die "$1 printed no version document: $2"
  printf '%s' "$2" | grep -q "\"version\": \"$(awk -F'"' '/^\[/{p = ($0 == "[package]")} p && /^version *=/{print $2; exit}' Cargo.toml)\"" ||
    die "$1 does not report Cargo.toml's version: $2"
}

out=$(run kubectl valkey-roll version -o json) || die "kubectl valkey-roll version failed"
expect_version "kubectl valkey-roll version" "$out"
say "kubectl valkey-roll version: OK"

out=$(run kubectl-valkey-roll version -o json) || die "kubectl-valkey-roll version failed"
expect_version "kubectl-valkey-roll version" "$out"
say "kubectl-valkey-roll version: OK"

list=$(run kubectl plugin list 2>&1) || die "kubectl plugin list failed: $list"
printf '%s\n' "$list" | sed 's/^/  | /' >&2
if printf '%s' "$list" | grep -qi 'warning'; then
  die "kubectl plugin list warns about the installed plugins"
fi
for name in kubectl-valkey-roll kubectl-valkey_roll; do
  printf '%s' "$list" | grep -q "$tmp/root/bin/$name\$" || die "kubectl plugin list does not list $name"
done
say "kubectl plugin list: both names, no warning"

comp=$(run kubectl __complete valkey-roll gr 2>/dev/null) || die "kubectl __complete failed"
[ "$(printf '%s\n' "$comp" | cut -f1 | head -n 1)" = grant ] ||
  die "kubectl's plugin completion did not offer grant: $comp"
say "kubectl __complete valkey-roll gr: grant"

say "done in $(($(date +%s) - start))s"
