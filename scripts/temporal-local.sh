#!/usr/bin/env bash
# The real Temporal server on 127.0.0.1, for development and tests: the Temporal CLI's development
# server (Temporal server and its Web UI in one binary, SQLite persistence), built from Go modules.
#
#   scripts/temporal-local.sh install | installed | path | start | stop | kill | status | env
#
# install  builds the pinned `temporal` binary once (go install; cached by version) unless one is
#          given or on PATH; installed: exit 0 when no build is needed; path prints the binary it
#          uses (installing it first).
# start    starts the server on 127.0.0.1 with its database file in the state dir (a restarted server
#          keeps its workflows), the Web UI, and Tandem's search attributes registered; waits until
#          it serves. A server already running from this state dir is left as it is.
# stop     SIGTERM, then SIGKILL after 10 s; kill: SIGKILL at once (a crash, for fault tests).
#
# Environment (all optional):
#   TANDEM_TEMPORAL_DIR      state dir: temporal.db (+ -wal, -shm), .log, .pid     (/var/tmp/tandem-temporal)
#   TANDEM_TEMPORAL_PORT     frontend gRPC port                                    (7233)
#   TANDEM_TEMPORAL_UI_PORT  Web UI port; 0 = no UI                                (8233)
#   TANDEM_TEMPORAL_BIN      a temporal binary to use as it is                     (none)
#   TANDEM_CACHE_DIR         where built binaries are kept across clones           (/var/cache/tandem)
set -euo pipefail

VERSION=v1.5.1 # Temporal CLI: server 1.29.1, UI 2.42.1. Later tags do not `go install` (docs/temporal-local.md).
MODULE=github.com/temporalio/cli/cmd/temporal
DIR=${TANDEM_TEMPORAL_DIR:-/var/tmp/tandem-temporal}
PORT=${TANDEM_TEMPORAL_PORT:-7233}
UI_PORT=${TANDEM_TEMPORAL_UI_PORT:-8233}
CACHE=${TANDEM_CACHE_DIR:-/var/cache/tandem}/temporal-cli-$VERSION
DB=$DIR/temporal.db
LOG=$DIR/temporal.log
PID_FILE=$DIR/temporal.pid
# Keep in step with workflows' Names.SA_* (docs/architecture.md, "Search attributes").
SEARCH_ATTRIBUTES=(TandemNodeSet TandemNode TandemK8sNode TandemPhase TandemPod TandemJobId TandemRemediationStep)

log() { echo "temporal-local: $*" >&2; }
die() {
  log "$*"
  exit 1
}

binary() {
  if [[ -n ${TANDEM_TEMPORAL_BIN:-} ]]; then
    [[ -x $TANDEM_TEMPORAL_BIN ]] || die "TANDEM_TEMPORAL_BIN=$TANDEM_TEMPORAL_BIN is not an executable"
    echo "$TANDEM_TEMPORAL_BIN"
  elif command -v temporal >/dev/null; then
    command -v temporal
  elif [[ -x $CACHE/temporal ]]; then
    echo "$CACHE/temporal"
  else
    return 1
  fi
}

install() {
  if bin=$(binary); then
    log "using $bin"
    return 0
  fi
  command -v go >/dev/null || die "Go 1.25 or newer is needed to build the Temporal CLI $VERSION" \
    "(https://go.dev/doc/install; Debian 12's golang package is too old), or put a temporal binary on" \
    "PATH or in TANDEM_TEMPORAL_BIN"
  local gov
  gov=$(go env GOVERSION | sed 's/^go//')
  if [[ $(printf '%s\n1.25\n' "$gov" | sort -V | head -n1) != 1.25 ]]; then
    die "Go $gov is too old to build the Temporal CLI $VERSION (1.25 or newer; https://go.dev/doc/install)"
  fi
  mkdir -p "$CACHE"
  log "building the Temporal CLI $VERSION from Go modules into $CACHE (once; about 3 minutes on 2 cores)"
  local tmp
  tmp=$(mktemp -d "$CACHE/.build.XXXXXX")
  if ! GOBIN=$tmp GOFLAGS=-mod=mod go install "$MODULE@$VERSION" 2> >(while IFS= read -r l; do
    [[ $l == "go: downloading "* ]] || echo "  $l" >&2
  done); then
    rm -rf "$tmp"
    die "go install $MODULE@$VERSION failed (above). It needs the Go module proxy" \
      "($(go env GOPROXY)); behind a proxy set GOPROXY, or put a temporal binary on PATH"
  fi
  mv "$tmp/temporal" "$CACHE/temporal"
  rm -rf "$tmp"
  log "built $("$CACHE/temporal" --version)"
}

running_pid() {
  [[ -f $PID_FILE ]] || return 1
  local pid
  pid=$(cat "$PID_FILE")
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

serving() {
  "$1" operator cluster health --address "127.0.0.1:$PORT" --command-timeout 2s 2>/dev/null | grep -q SERVING
}

start() {
  install
  local bin
  bin=$(binary)
  mkdir -p "$DIR"
  if pid=$(running_pid); then
    log "already running (pid $pid) on 127.0.0.1:$PORT"
    return 0
  fi
  local args=(server start-dev --ip 127.0.0.1 --port "$PORT" --db-filename "$DB" --log-level warn)
  if [[ $UI_PORT == 0 ]]; then
    args+=(--headless)
  else
    args+=(--ui-ip 127.0.0.1 --ui-port "$UI_PORT")
  fi
  for a in "${SEARCH_ATTRIBUTES[@]}"; do
    args+=(--search-attribute "$a=Keyword")
  done
  # Worker Versioning (pinned and auto-upgrade workflows; docs/upgrading.md) and the deployment APIs
  # the CLI uses: server 1.29's keys (checked against the 1.29.1 binary), on by default there, set
  # so that a server built with other defaults still has them (WorkerVersioningIT needs them).
  args+=(--dynamic-config-value system.enableDeploymentVersions=true)
  args+=(--dynamic-config-value frontend.workerVersioningWorkflowAPIs=true)
  # SQLite's defaults (a rollback journal, synchronous=FULL) fsync several times per transaction;
  # with 1,000 nodes provisioning at once the server then waits on the disk. WAL with
  # synchronous=NORMAL keeps every committed transaction across a killed server process (what
  # the fault suite does to it); only a power cut can lose the last ones, never corrupt the file.
  args+=(--sqlite-pragma journal_mode=WAL --sqlite-pragma synchronous=NORMAL)
  log "starting Temporal on 127.0.0.1:$PORT (UI: $([[ $UI_PORT == 0 ]] && echo off || echo "http://127.0.0.1:$UI_PORT"), database $DB)"
  setsid "$bin" "${args[@]}" >>"$LOG" 2>&1 </dev/null &
  echo $! >"$PID_FILE"
  local pid=$!
  for _ in $(seq 1 120); do
    if ! kill -0 "$pid" 2>/dev/null; then
      tail -n 20 "$LOG" >&2
      die "the server exited at start (log above, $LOG); is port $PORT or $UI_PORT taken?"
    fi
    if serving "$bin"; then
      log "running (pid $pid)"
      return 0
    fi
    sleep 0.5
  done
  die "not serving on 127.0.0.1:$PORT after 60 s (log: $LOG)"
}

stop() {
  local pid
  if ! pid=$(running_pid); then
    rm -f "$PID_FILE"
    return 0
  fi
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    log "pid $pid did not stop in 10 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$PID_FILE"
  log "stopped"
}

hard_kill() {
  local pid
  if pid=$(running_pid); then
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
  fi
  rm -f "$PID_FILE"
}

case ${1:-} in
install) install ;;
installed) binary >/dev/null ;;
path) install && binary ;;
start) start ;;
stop) stop ;;
kill) hard_kill ;;
status)
  if pid=$(running_pid); then
    echo "running (pid $pid) on 127.0.0.1:$PORT, UI $([[ $UI_PORT == 0 ]] && echo off || echo "http://127.0.0.1:$UI_PORT"), database $DB"
  else
    echo "not running"
    exit 3
  fi
  ;;
env) echo "TEMPORAL_ADDRESS=127.0.0.1:$PORT" ;;
*)
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
  ;;
esac
