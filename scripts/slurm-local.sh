#!/usr/bin/env bash
# A real Slurm 22.05 cluster on 127.0.0.1 from Debian packages, for development and tests.
#
#   scripts/slurm-local.sh install | start | stop | status | token [LIFESPAN_S] | env
#                          | node-up NAME | node-down NAME
#
# Everything lives under one state dir (conf, keys, state, logs, pids), so a second instance can run
# beside the first with another TANDEM_SLURM_DIR and other port bases. See docs/slurm-local.md.
#
# Environment (all optional):
#   TANDEM_SLURM_DIR            state dir                       (/var/tmp/tandem-slurm)
#   TANDEM_SLURM_PORT_BASE      slurmctld port; +3 = slurmrestd (6817)
#   TANDEM_SLURM_NODE_PORT_BASE first slurmd port               (17001)
#   TANDEM_SLURM_NODES          number of static nodes n1..nN   (4)
#   TANDEM_SLURM_POOLS          FUTURE pool nodes, prefix:count (spare:4,gpu-a:8,e2e:8,wt:4,cli:4)
#   TANDEM_SLURM_GPU_NODES      nodes given a fake Gres=gpu:2   (n[3-4] and the gpu-a pool)
#   TANDEM_SLURM_SLURMD_TIMEOUT SlurmdTimeout in seconds        (10)
set -euo pipefail

DIR=${TANDEM_SLURM_DIR:-/var/tmp/tandem-slurm}
PORT_BASE=${TANDEM_SLURM_PORT_BASE:-6817}
NODE_PORT_BASE=${TANDEM_SLURM_NODE_PORT_BASE:-17001}
NODES=${TANDEM_SLURM_NODES:-4}
POOLS=${TANDEM_SLURM_POOLS:-spare:4,gpu-a:8,e2e:8,wt:4,cli:4}
SLURMD_TIMEOUT=${TANDEM_SLURM_SLURMD_TIMEOUT:-10}
API=v0.0.38
CTLD_PORT=$PORT_BASE
REST_PORT=$((PORT_BASE + 3))
CONF=$DIR/etc/slurm.conf
ENV_FILE=$DIR/slurm.env
TOKEN_FILE=$DIR/token
KEY_FILE=$DIR/etc/jwt_hs256.key
MUNGE_DIR=$DIR/munge
MUNGE_SOCKET=$MUNGE_DIR/munge.socket
REST_USER=tandem-slurmrestd
PACKAGES=(munge slurmctld slurmd slurmrestd slurm-client slurm-wlm-jwt-plugin curl procps util-linux)
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

# ---------------------------------------------------------------- install

cmd_install() {
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]})); then
    log "installing ${missing[*]}"
    # Postinst scripts try to start the daemons; a policy-rc.d that exits 101 stops that. Only ours
    # is created and removed: a machine may have its own (containers usually do).
    local policy_created=
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
      printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
      chmod 755 /usr/sbin/policy-rc.d
      policy_created=1
    fi
    # shellcheck disable=SC2064
    trap "[[ -n '$policy_created' ]] && rm -f /usr/sbin/policy-rc.d" EXIT
    export DEBIAN_FRONTEND=noninteractive
    apt-get -o DPkg::Lock::Timeout=300 update -q
    apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends "${missing[@]}"
  else
    log "packages already installed"
  fi
  # slurmrestd refuses to run as root (or as SlurmUser): give it a system user of its own.
  if ! id -u "$REST_USER" >/dev/null 2>&1; then
    useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$REST_USER"
    log "created system user $REST_USER"
  fi
  log "install done: $(slurmctld -V 2>/dev/null || echo 'slurmctld missing?')"
}

# ---------------------------------------------------------------- config

node_line() { # name-expression port-range extra state
  echo "NodeName=$1 NodeHostname=$HOST NodeAddr=127.0.0.1 Port=$2 CPUs=4 RealMemory=4000 $3 State=$4"
}

write_conf() {
  local port=$NODE_PORT_BASE prefix count last gres gres_conf=$DIR/etc/gres.conf.tmp
  # Fake GPUs. 22.05's slurmd drops file-less GPUs ("Removing file-less GPU") and then slurmctld
  # marks the node INVAL (0 < 2), and a regular file is "not a valid character device"; symlinks to
  # /dev/null and /dev/zero register cleanly. With task/none nothing constrains devices, so jobs
  # only see CUDA_VISIBLE_DEVICES.
  install -d -m 755 "$DIR/dev"
  ln -sfn /dev/null "$DIR/dev/gpu0"
  ln -sfn /dev/zero "$DIR/dev/gpu1"
  local gpu_line="Name=gpu File=$DIR/dev/gpu[0-1]"
  echo "# Generated by scripts/slurm-local.sh: fake GPUs (symlinks to /dev/null, /dev/zero)." >"$gres_conf"
  {
    cat <<EOF
# Generated by scripts/slurm-local.sh; regenerated at every start. Why each line: docs/slurm-local.md.
ClusterName=tandem
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$((PORT_BASE + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=cred_expire=10,socket=$MUNGE_SOCKET
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$KEY_FILE
CommunicationParameters=NoInAddrAny,NoCtldInAddrAny
StateSaveLocation=$DIR/state/ctld
SlurmdSpoolDir=$DIR/state/d/%n
SlurmctldPidFile=$DIR/run/slurmctld.pid
SlurmdPidFile=$DIR/run/slurmd-%n.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd-%n.log
DebugFlags=NO_CONF_HASH
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,bf_interval=2,sched_interval=5
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
ReturnToService=1
SlurmdParameters=config_overrides
SlurmctldTimeout=30
SlurmdTimeout=$SLURMD_TIMEOUT
InactiveLimit=0
MinJobAge=300
KillWait=5
PreemptType=preempt/partition_prio
PreemptMode=REQUEUE
EOF
    # Static nodes; the last two (of 3 or more) get a fake GPU GRES (a count, no device files).
    local plain=$NODES
    ((NODES >= 3)) && plain=$((NODES - 2))
    node_line "n[1-$plain]" "[$port-$((port + plain - 1))]" "" UNKNOWN
    if ((plain < NODES)); then
      node_line "n[$((plain + 1))-$NODES]" "[$((port + plain))-$((port + NODES - 1))]" "Gres=gpu:2" UNKNOWN
      echo "NodeName=n[$((plain + 1))-$NODES] $gpu_line" >>"$gres_conf"
    fi
    port=$((port + NODES))
    # Pool nodes: declared FUTURE with their own ports; `node-up` (or the dev kubelet) starts them.
    # Pools whose prefix starts with "gpu" get the fake GPUs too.
    while read -r prefix count; do
      last=$((count - 1))
      gres=""
      if [[ $prefix == gpu* ]]; then
        gres="Gres=gpu:2"
        echo "NodeName=$prefix-[0-$last] $gpu_line" >>"$gres_conf"
      fi
      node_line "$prefix-[0-$last]" "[$port-$((port + last))]" "$gres" FUTURE
      port=$((port + count))
    done < <(pools)
    echo "PartitionName=low  Nodes=ALL Default=YES PriorityTier=1  PreemptMode=REQUEUE MaxTime=INFINITE State=UP"
    echo "PartitionName=high Nodes=ALL Default=NO  PriorityTier=10 PreemptMode=OFF     MaxTime=INFINITE State=UP"
  } >"$CONF.tmp"
  mv "$gres_conf" "$DIR/etc/gres.conf"
  mv "$CONF.tmp" "$CONF"
  chmod 644 "$CONF" "$DIR/etc/gres.conf"
}

write_env() {
  umask 077
  cat >"$ENV_FILE.tmp" <<EOF
SLURM_REST_URL=http://127.0.0.1:$REST_PORT
SLURM_REST_API=$API
SLURM_USER=root
SLURM_TOKEN_FILE=$TOKEN_FILE
SLURM_JWT_KEY_FILE=$KEY_FILE
SLURM_CONF=$CONF
TANDEM_SLURM_DIR=$DIR
TANDEM_SLURM_POOLS=$POOLS
SLURMD_BIN=$SLURMD_BIN
SCONTROL_BIN=$SCONTROL_BIN
EOF
  chmod 600 "$ENV_FILE.tmp"
  mv "$ENV_FILE.tmp" "$ENV_FILE"
}

write_token_file() {
  local token
  token=$(new_token 86400)
  umask 077
  printf '%s\n' "$token" >"$TOKEN_FILE.tmp"
  chmod 600 "$TOKEN_FILE.tmp"
  mv "$TOKEN_FILE.tmp" "$TOKEN_FILE"
}

# ---------------------------------------------------------------- start

healthy() {
  our_pid "$DIR/run/munged.pid" >/dev/null && our_pid "$DIR/run/slurmctld.pid" >/dev/null &&
    our_pid "$DIR/run/slurmrestd.pid" >/dev/null && ctld_up && rest_ping
}

start_munged() {
  install -d -m 755 -o munge -g munge "$MUNGE_DIR"
  if [[ ! -s $MUNGE_DIR/munge.key ]]; then
    head -c 1024 /dev/urandom >"$MUNGE_DIR/munge.key"
  fi
  chown munge:munge "$MUNGE_DIR/munge.key"
  chmod 400 "$MUNGE_DIR/munge.key"
  rm -f "$MUNGE_SOCKET" "$MUNGE_SOCKET.lock"
  # A private munged (own key, socket, pid) so instances and the machine's munged never meet.
  setsid setpriv --reuid=munge --regid=munge --clear-groups \
    munged -F --socket="$MUNGE_SOCKET" --key-file="$MUNGE_DIR/munge.key" \
    --pid-file="$DIR/run/munged.pid" --seed-file="$MUNGE_DIR/munged.seed" </dev/null >>"$DIR/log/munged.log" 2>&1 9>&- &
  echo $! >"$DIR/run/munged.pid"
  wait_for 10 "munged socket" bash -c "munge -S '$MUNGE_SOCKET' -n | unmunge -S '$MUNGE_SOCKET'" ||
    fail_start "munged did not start"
}

start_slurmd() { # name
  local name=$1
  install -d -m 755 "$DIR/state/d/$name"
  rm -f "$DIR/run/slurmd-$name.pid"
  setsid "$SLURMD_BIN" -D -N "$name" -f "$CONF" </dev/null >>"$DIR/log/slurmd-$name.out" 2>&1 9>&- &
  echo $! >"$DIR/run/slurmd-$name.pid"
}

# A node is in service when slurmctld reports it registered and responding (sinfo marks
# not-responding with '*'; FUTURE, DOWN, UNKNOWN and INVAL are not in service).
node_serving() {
  local st
  st=$(timeout 5 sinfo -h -N -n "$1" -o '%T' 2>/dev/null | head -n1)
  [[ $st =~ ^(idle|allocated|mixed|completing|drained|draining|reserved|planned)(\+[a-z+]*)?$ ]]
}

node_future() { timeout 5 scontrol show node -F "$1" 2>/dev/null | grep -q 'State=FUTURE'; }

static_nodes_serving() {
  local i
  for ((i = 1; i <= NODES; i++)); do node_serving "n$i" || return 1; done
}

cmd_start() {
  [[ $(id -u) == 0 ]] || die "run as root (slurmd must run as root)"
  command -v slurmctld >/dev/null || die "Slurm is not installed: run '$0 install' first"
  id -u "$REST_USER" >/dev/null 2>&1 || die "user $REST_USER missing: run '$0 install' first"
  if healthy; then
    write_token_file
    write_env
    log "already running and healthy ($DIR, slurmrestd on 127.0.0.1:$REST_PORT)"
    return 0
  fi
  if our_pid "$DIR/run/slurmctld.pid" >/dev/null || our_pid "$DIR/run/munged.pid" >/dev/null ||
    our_pid "$DIR/run/slurmrestd.pid" >/dev/null; then
    log "partly running and not healthy: stopping it first"
    cmd_stop
  fi
  local p
  for p in "$CTLD_PORT" "$REST_PORT" "$NODE_PORT_BASE"; do
    port_in_use "$p" && die "port $p on 127.0.0.1 is in use by another process; set TANDEM_SLURM_PORT_BASE"
  done
  HOST=$(short_host)
  if ! getent hosts "$HOST" >/dev/null; then
    # Slurm resolves its own host name; map it to loopback when nothing else does.
    echo "127.0.0.1 $HOST" >>/etc/hosts
    log "mapped $HOST to 127.0.0.1 in /etc/hosts"
  fi
  install -d -m 755 "$DIR" "$DIR/etc" "$DIR/run" "$DIR/log" "$DIR/state" "$DIR/state/d"
  install -d -m 700 "$DIR/state/ctld"
  rm -f "$DIR"/run/*.pid
  # slurmrestd logs ~500 bytes per request at its lowest level: keep one old generation of big logs.
  local f
  for f in "$DIR"/log/*.log "$DIR"/log/*.out; do
    [[ -f $f && $(stat -c %s "$f") -gt 20000000 ]] && mv -f "$f" "$f.old"
  done
  # Forget node states (pool nodes left up by a crash, old drains) but keep job state, so job ids
  # keep growing across restarts and never name two different jobs.
  rm -f "$DIR"/state/ctld/node_state*
  if [[ ! -s $KEY_FILE ]]; then
    (umask 077 && head -c 32 /dev/urandom >"$KEY_FILE")
  fi
  chmod 600 "$KEY_FILE"
  write_conf
  log "starting in $DIR (slurmctld :$CTLD_PORT, slurmrestd :$REST_PORT, nodes from :$NODE_PORT_BASE)"

  start_munged
  setsid slurmctld -D -i -f "$CONF" </dev/null >>"$DIR/log/slurmctld.out" 2>&1 9>&- &
  echo $! >"$DIR/run/slurmctld.pid"
  wait_for 30 "slurmctld to answer 'scontrol ping'" ctld_up || fail_start "slurmctld did not come up"

  local i
  for ((i = 1; i <= NODES; i++)); do start_slurmd "n$i"; done
  wait_for 30 "static nodes n[1-$NODES] to register" static_nodes_serving ||
    fail_start "static nodes did not register: $(sinfo -h -N -o '%N %T' 2>&1 | tr '\n' ' ')"

  write_token_file
  # slurmrestd refuses root; SLURM_JWT=daemon makes it accept per-request tokens (without it
  # every request fails 401, "Rejecting thread config token").
  setsid env SLURM_JWT=daemon SLURM_CONF="$CONF" \
    setpriv --reuid="$REST_USER" --regid="$REST_USER" --clear-groups \
    slurmrestd -f "$CONF" -a rest_auth/jwt -s "openapi/$API" "127.0.0.1:$REST_PORT" \
    </dev/null >>"$DIR/log/slurmrestd.log" 2>&1 9>&- &
  echo $! >"$DIR/run/slurmrestd.pid"
  wait_for 20 "slurmrestd to answer /slurm/$API/ping" rest_ping || fail_start "slurmrestd did not come up"
  write_env
  log "running: $(sinfo -h -o '%P %D %T' | tr '\n' ';') env file: $ENV_FILE"
}

# ---------------------------------------------------------------- stop

# TERM the given PIDs, then KILL what is left after a bounded wait.
terminate() {
  local limit=$1 pid
  shift
  (($#)) || return 0
  kill -TERM "$@" 2>/dev/null || true
  local deadline=$((SECONDS + limit))
  while ((SECONDS < deadline)); do
    local alive=0
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    ((alive)) || return 0
    sleep 0.2
  done
  log "still alive after ${limit}s, sending SIGKILL: $*"
  kill -KILL "$@" 2>/dev/null || true
}

cmd_stop() {
  local pid f pids=()
  if our_pid "$DIR/run/slurmctld.pid" >/dev/null && ctld_up; then
    # Cancel first so slurmd ends each job's slurmstepd and sleep; killing slurmd would orphan them.
    local jobs
    jobs=$(timeout 5 squeue -h -o '%A' 2>/dev/null | tr '\n' ' ' || true)
    if [[ -n ${jobs// /} ]]; then
      # shellcheck disable=SC2086
      timeout 10 scancel $jobs 2>/dev/null || true
      wait_for 15 "jobs to end" bash -c '[[ -z $(squeue -h -o %A 2>/dev/null) ]]' || true
    fi
  fi
  if pid=$(our_pid "$DIR/run/slurmrestd.pid"); then pids+=("$pid"); fi
  for f in "$DIR"/run/slurmd-*.pid; do
    [[ -f $f ]] || continue
    if pid=$(our_pid "$f"); then pids+=("$pid"); fi
  done
  terminate 10 "${pids[@]}"
  pids=()
  if pid=$(our_pid "$DIR/run/slurmctld.pid"); then pids+=("$pid"); fi
  terminate 10 "${pids[@]}"
  pids=()
  if pid=$(our_pid "$DIR/run/munged.pid"); then pids+=("$pid"); fi
  terminate 5 "${pids[@]}"
  rm -f "$DIR"/run/*.pid
  log "stopped ($DIR)"
}

# ---------------------------------------------------------------- status, nodes

cmd_status() {
  local f pid running=0
  for f in "$DIR"/run/*.pid; do
    [[ -f $f ]] || continue
    if pid=$(our_pid "$f"); then
      echo "$(basename "$f" .pid) pid $pid"
    else
      echo "$(basename "$f" .pid) not running (stale pid file)"
    fi
  done
  if our_pid "$DIR/run/slurmctld.pid" >/dev/null && ctld_up; then
    running=1
    sinfo -N -o '%10N %10P %12T %E' || true
  fi
  if ((running)) && rest_ping; then
    echo "slurmrestd: http://127.0.0.1:$REST_PORT/slurm/$API answers"
    return 0
  fi
  echo "not running (or not healthy) in $DIR"
  return 1
}

cmd_node_up() {
  local name=${1:?usage: node-up NAME}
  is_pool_node "$name" || die "'$name' is not a pool node of TANDEM_SLURM_POOLS=$POOLS"
  ctld_up || die "slurmctld is not running: run '$0 start' first"
  if our_pid "$DIR/run/slurmd-$name.pid" >/dev/null; then
    log "slurmd for $name already running"
  else
    start_slurmd "$name"
  fi
  wait_for 30 "$name to register" node_serving "$name" || {
    tail -n 20 "$DIR/log/slurmd-$name.log" >&2 2>/dev/null || true
    die "$name did not register"
  }
  log "$name is up"
}

cmd_node_down() {
  local name=${1:?usage: node-down NAME} pid
  is_pool_node "$name" || die "'$name' is not a pool node of TANDEM_SLURM_POOLS=$POOLS"
  if ctld_up && node_serving "$name"; then
    # DOWN while slurmd still runs, so slurmd ends the node's jobs (they are requeued); a killed
    # slurmd would leave their slurmstepd and processes behind. FUTURE is refused while jobs remain.
    timeout 10 scontrol update NodeName="$name" State=DOWN Reason="slurm-local node-down" || true
    wait_for 15 "jobs on $name to end" bash -c "[[ -z \$(squeue -h -w '$name' -t R,CG,S -o %A 2>/dev/null) ]]" ||
      log "jobs on $name did not end in time; stopping its slurmd anyway"
  fi
  if pid=$(our_pid "$DIR/run/slurmd-$name.pid"); then terminate 10 "$pid"; fi
  rm -f "$DIR/run/slurmd-$name.pid"
  if ctld_up && ! node_future "$name"; then
    timeout 10 scontrol update NodeName="$name" State=DOWN Reason="slurm-local node-down" 2>/dev/null || true
    timeout 10 scontrol update NodeName="$name" State=FUTURE || node_future "$name" ||
      die "could not return $name to FUTURE"
  fi
  log "$name is down (State=FUTURE)"
}

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
  *)
    sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'
    exit 2
    ;;
esac
