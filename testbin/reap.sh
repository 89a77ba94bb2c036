#!/usr/bin/env bash
# Kills the test servers (etcd, kube-apiserver, the control plane's
# kube-controller-manager, kube-scheduler and kwok, and valkey-server) that test runs left
# behind, and removes their work directories. The test harness (tests/harness) writes one
# pidfile per child it starts:
#
#   <target dir>/testbin-pids/<name>-<pid>.pid     line 1: pid, line 2: work dir
#
# and removes it when it stops the child itself. A pidfile that is still
# there belongs to a test process that died without cleaning up (SIGKILL,
# abort); its child normally died with it (PR_SET_PDEATHSIG), and this script
# makes sure. A pid is only signalled while /proc says it is still one of
# those six programs, so a recycled pid is never hit.
#
# The harness also appends each child it starts to a ledger,
#
#   <target dir>/testbin-pids/started          <pid> <start time> <name> a line
#
# (the start time in clock ticks since boot, field 22 of /proc/<pid>/stat),
# which nothing but a new run removes (.ci/run does, as it begins).
#
# Usage: bash testbin/reap.sh [--check]
#   --check: also fail (exit 1) if a process running a binary from the
#            testbin cache is still alive afterwards in a process group the
#            ledger names (CI runs this last). A server from the same cache
#            that this run did not start (a person's own dev cluster) is
#            named and left alone.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
target=${CARGO_TARGET_DIR:-$root/target}
case $target in /*) ;; *) target=$root/$target ;; esac
piddir=$target/testbin-pids
cache=${TESTBIN_CACHE:-${HOME:-/root}/.cache/kubectl-valkey-roll/testbin}
check=false
[ "${1:-}" = --check ] && check=true

say() { printf 'reap: %s\n' "$*" >&2; }

is_ours() { # pid -> true while it runs one of the test servers' programs
  local exe
  [ -r "/proc/$1/cmdline" ] || return 1
  exe=$(tr '\0' '\n' <"/proc/$1/cmdline" 2>/dev/null | head -n 1)
  case ${exe##*/} in etcd | kube-apiserver | kube-controller-manager | kube-scheduler | kwok | valkey-server) return 0 ;; *) return 1 ;; esac
}

kill_wait() { # pid: SIGKILL its process group and itself, wait up to 10 s
  local pid=$1 i
  kill -KILL -- "-$pid" 2>/dev/null || true
  kill -KILL "$pid" 2>/dev/null || true
  for i in $(seq 100); do
    is_ours "$pid" || return 0
    # a zombie whose parent is gone is reaped by init; stop waiting for it
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && return 0
    sleep 0.1
  done
  say "pid $pid did not exit"
  return 1
}

killed=0
if [ -d "$piddir" ]; then
  for f in "$piddir"/*.pid; do
    [ -e "$f" ] || continue
    pid=$(sed -n 1p "$f")
    dir=$(sed -n 2p "$f")
    if [[ $pid =~ ^[0-9]+$ ]] && is_ours "$pid"; then
      say "killing left-over ${f##*/} (pid $pid)"
      kill_wait "$pid" || true
      killed=$((killed + 1))
    fi
    # the work dir is the harness's temporary directory (etcd data, certs)
    if [ -n "$dir" ] && [ -d "$dir" ] && [ -e "$dir/.testbin-workdir" ]; then
      rm -rf "$dir"
    fi
    rm -f "$f"
  done
fi
say "$killed left-over test server process(es) killed"

stat_of() { # pid -> "<process group> <start time>", nothing once it is gone
  local stat rest
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  # the command name, in parentheses, may hold spaces: count after it
  rest=${stat##*) }
  # shellcheck disable=SC2086 # split into fields on purpose
  set -- $rest
  [ $# -ge 20 ] || return 1
  printf '%s %s\n' "$3" "${20}"
}

if $check; then
  # the process groups this run started: leader pid -> its start time
  declare -A started=()
  ledger=$piddir/started
  if [ -f "$ledger" ]; then
    while read -r pid start _; do
      [[ $pid =~ ^[0-9]+$ && $start =~ ^[0-9]+$ ]] && started[$pid]=$start
    done <"$ledger"
  fi
  left=()
  others=()
  for p in /proc/[0-9]*; do
    pid=${p#/proc/}
    exe=$(readlink "$p/exe" 2>/dev/null) || continue
    case $exe in
      "$cache"/etcd-*/etcd | "$cache"/kube-apiserver-*/kube-apiserver | \
        "$cache"/kube-controller-manager-*/kube-controller-manager | \
        "$cache"/kube-scheduler-*/kube-scheduler | "$cache"/kwok-*/kwok | \
        "$cache"/valkey-server-*/valkey-server) ;;
      *) continue ;;
    esac
    read -r group start < <(stat_of "$pid") || continue
    # ours: in a group the ledger names, started no earlier than its leader
    # (a later group that reuses a dead leader's pid started after it too,
    # but only once the pids wrapped around)
    if [ -n "${started[$group]:-}" ] && [ "$start" -ge "${started[$group]}" ]; then
      left+=("$pid:$exe")
    else
      others+=("$pid:$exe")
    fi
  done
  if [ ${#others[@]} -gt 0 ]; then
    say "left alone, not started by this run: ${others[*]}"
  fi
  if [ ${#left[@]} -gt 0 ]; then
    say "still running: ${left[*]}"
    exit 1
  fi
  say "no test server (etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kwok, valkey-server) this run started from $cache is running"
fi
