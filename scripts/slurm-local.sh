#!/usr/bin/env bash
# A real Slurm 22.05 cluster on 127.0.0.1 from Debian packages, for development and tests.
#
#   scripts/slurm-local.sh install | start | stop | status | token [LIFESPAN_S] | env
#                          | node-up NAME | node-down NAME | rest-stop | rest-kill | rest-start
#                          | dyn-up NAME [CONF] | dyn-down NAME   (a dynamic node, slurmd -Z)
#                          | topology FILE | reconfigure
#                          | db-stop   (slurmdbd and MariaDB only: an accounting outage)
#
# start brings up what is not running: everything when nothing runs, otherwise only the dead daemons
# (no job cancelled, no slurmd stopped). rest-start restarts slurmrestd alone. Accounting (slurmdbd on
# a MariaDB of its own) starts with the rest: docs/slurm-local.md, "Accounting".
#
# Everything lives under one state dir (conf, keys, state, logs, pids), so a second instance can run
# beside the first with another TANDEM_SLURM_DIR and other port bases. See docs/slurm-local.md.
#
# Environment (all optional):
#   TANDEM_SLURM_DIR            state dir                       (/var/tmp/tandem-slurm)
#   TANDEM_SLURM_PORT_BASE      slurmctld port; +2 = slurmdbd, +3 = slurmrestd (6817)
#   TANDEM_SLURM_DB_PORT        MariaDB of the accounting database (PORT_BASE + 4)
#   TANDEM_SLURM_NODE_PORT_BASE first slurmd port               (17001)
#   TANDEM_SLURM_NODES          number of static nodes n1..nN   (4)
#   TANDEM_SLURM_NODES_UP       static nodes given a slurmd     (all; fewer for listing benches)
#   TANDEM_SLURM_POOLS          FUTURE pool nodes, prefix:count (spare:4,gpu-a:8,e2e:8,wt:4,cli:4)
#   TANDEM_SLURM_POOL_CPUS      CPUs each pool node declares (32; more than the machine has)
#   TANDEM_SLURM_GPU_NODES      nodes given a fake Gres=gpu:2   (n[3-4] and the gpu-a pool)
#   TANDEM_SLURM_SLURMD_TIMEOUT SlurmdTimeout in seconds        (10)
#   TANDEM_SLURM_MAX_NODES      MaxNodeCount: declared + dynamic nodes (256)
#   TANDEM_SLURM_MIN_JOB_AGE    MinJobAge: seconds an ended job stays listed (300, Slurm's)
#   TANDEM_SLURM_FEATURE_PARTITIONS partitions over feature node sets (gpu:gpu+h100+a100)
#   TANDEM_SLURM_TOPOLOGY       none, or tree: TopologyPlugin=topology/tree and a topology.conf
#                               (`topology FILE` installs Tandem's; docs/topology.md) (none)
set -euo pipefail

DIR=${TANDEM_SLURM_DIR:-/var/tmp/tandem-slurm}
PORT_BASE=${TANDEM_SLURM_PORT_BASE:-6817}
NODE_PORT_BASE=${TANDEM_SLURM_NODE_PORT_BASE:-17001}
NODES=${TANDEM_SLURM_NODES:-4}
NODES_UP=${TANDEM_SLURM_NODES_UP:-$NODES}
POOLS=${TANDEM_SLURM_POOLS:-spare:4,gpu-a:8,e2e:8,wt:4,cli:4}
POOL_CPUS=${TANDEM_SLURM_POOL_CPUS:-32}
SLURMD_TIMEOUT=${TANDEM_SLURM_SLURMD_TIMEOUT:-10}
MAX_NODES=${TANDEM_SLURM_MAX_NODES:-256}
MIN_JOB_AGE=${TANDEM_SLURM_MIN_JOB_AGE:-300}
FEATURE_PARTITIONS=${TANDEM_SLURM_FEATURE_PARTITIONS:-gpu:gpu+h100+a100}
TOPOLOGY=${TANDEM_SLURM_TOPOLOGY:-none}
API=v0.0.38
CTLD_PORT=$PORT_BASE
DBD_PORT=$((PORT_BASE + 2))
REST_PORT=$((PORT_BASE + 3))
DB_PORT=${TANDEM_SLURM_DB_PORT:-$((PORT_BASE + 4))}
CONF=$DIR/etc/slurm.conf
ENV_FILE=$DIR/slurm.env
TOKEN_FILE=$DIR/token
KEY_FILE=$DIR/etc/jwt_hs256.key
MUNGE_DIR=$DIR/munge
MUNGE_SOCKET=$MUNGE_DIR/munge.socket
REST_USER=tandem-slurmrestd
PACKAGES=(munge slurmctld slurmd slurmrestd slurm-client slurm-wlm-jwt-plugin slurmdbd mariadb-server curl procps util-linux)
SLURMD_BIN=/usr/sbin/slurmd
SCONTROL_BIN=/usr/bin/scontrol
export SLURM_CONF=$CONF

log() { echo "slurm-local: $*" >&2; }
die() {
  log "ERROR: $*"
  exit 1
}

# ---------------------------------------------------------------- helpers

# The PID recorded in a pid file, if that process is alive AND belongs to this state dir (its
# command line names a file under $DIR). A stale file from a crash, or a PID reused by another
# process, yields nothing: we never signal what we did not start.
our_pid() {
  local file=$1 pid
  [[ -f $file ]] || return 1
  pid=$(tr -dc '0-9' <"$file")
  [[ -n $pid && -r /proc/$pid/cmdline ]] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$DIR/" || return 1
  echo "$pid"
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

short_host() { uname -n | cut -d. -f1; }

# Bounded wait: wait_for SECONDS DESCRIPTION COMMAND...; polls every 0.2 s.
wait_for() {
  local limit=$1 what=$2
  shift 2
  local deadline=$((SECONDS + limit))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      log "timed out after ${limit}s waiting for: $what"
      return 1
    fi
    sleep 0.2
  done
}

tail_logs() {
  local f
  for f in "$DIR"/log/*.log; do
    [[ -f $f ]] || continue
    echo "----- tail $f" >&2
    tail -n 25 "$f" >&2 || true
  done
}

fail_start() {
  log "ERROR: $*"
  tail_logs
  exit 1
}

# "prefix:count,..." -> one "prefix count" line per pool, validated.
pools() {
  local entry prefix count
  IFS=',' read -ra entries <<<"$POOLS"
  for entry in "${entries[@]}"; do
    [[ -z $entry ]] && continue
    prefix=${entry%%:*}
    count=${entry#*:}
    [[ $prefix =~ ^[a-z][a-z0-9-]*$ && $count =~ ^[0-9]+$ && $count -gt 0 && $entry == *:* ]] ||
      die "bad TANDEM_SLURM_POOLS entry '$entry' (want prefix:count, e.g. gpu-a:8)"
    echo "$prefix $count"
  done
}

is_pool_node() {
  local name=$1 prefix count idx
  while read -r prefix count; do
    idx=${name#"$prefix"-}
    if [[ $idx != "$name" && $idx =~ ^[0-9]+$ && $idx -lt $count && $name == "$prefix-$idx" ]]; then
      return 0
    fi
  done < <(pools)
  return 1
}

ctld_up() { timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP'; }

new_token() {
  local lifespan=${1:-86400} out
  [[ $lifespan =~ ^[0-9]+$ ]] || die "token lifespan must be seconds, got '$lifespan'"
  out=$(timeout 10 scontrol token username=root lifespan="$lifespan") || die "scontrol token failed (is Slurm running? try: $0 status)"
  echo "${out#SLURM_JWT=}"
}

rest_ping() {
  local token
  token=$(cat "$TOKEN_FILE" 2>/dev/null) || return 1
  curl -fsS --max-time 3 -H "X-SLURM-USER-NAME: root" -H "X-SLURM-USER-TOKEN: $token" \
    "http://127.0.0.1:$REST_PORT/slurm/$API/ping" | grep -q '"UP"'
}

# The commands live in two files beside this one (sourced: they share the settings above).
# shellcheck source=lib/slurm-local-setup.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/slurm-local-setup.sh"
# shellcheck source=lib/slurm-local-accounting.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/slurm-local-accounting.sh"
# shellcheck source=lib/slurm-local-daemons.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/slurm-local-daemons.sh"

# start/stop/node-up/node-down change pid files and daemons: one at a time per state dir (tests of
# several modules or engineers may call them at once).
lock() {
  install -d -m 755 "$DIR"
  exec 9>"$DIR/.lock"
  flock -w 180 9 || die "another slurm-local.sh holds $DIR/.lock for more than 180 s"
}

case ${1:-} in
  install) cmd_install ;;
  start) lock && cmd_start ;;
  stop) lock && cmd_stop ;;
  status) cmd_status ;;
  token) new_token "${2:-86400}" ;;
  env) cat "$ENV_FILE" 2>/dev/null || die "no env file at $ENV_FILE: run '$0 start'" ;;
  node-up) lock && cmd_node_up "${2:-}" ;;
  node-down) lock && cmd_node_down "${2:-}" ;;
  dyn-up) lock && cmd_dyn_up "${2:-}" "${3:-}" ;;
  dyn-down) lock && cmd_dyn_down "${2:-}" ;;
  rest-stop) lock && cmd_rest_stop TERM ;;
  rest-kill) lock && cmd_rest_stop KILL ;;
  rest-start) lock && cmd_rest_start ;;
  db-stop) lock && cmd_db_stop ;;
  topology) lock && cmd_topology "${2:-}" ;;
  reconfigure) timeout 30 scontrol reconfigure ;;
  *)
    sed -n '2,32p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
