# Sourced by scripts/slurm-local.sh: start, stop, status, node-up, node-down.
# Uses the settings and helpers defined there.

# ---------------------------------------------------------------- start

start_munged() {
  install -d -m 755 -o munge -g munge "$MUNGE_DIR"
  # munged runs as user munge and resolves its whole path: a parent directory of mode 0700 (a
  # mktemp -d, say) stops it with only "Permission denied" in its log.
  setpriv --reuid=munge --regid=munge --clear-groups test -x "$MUNGE_DIR" ||
    die "user munge cannot reach $MUNGE_DIR: make every parent directory of $DIR searchable (chmod o+x), or choose another TANDEM_SLURM_DIR"
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
  for ((i = 1; i <= NODES_UP; i++)); do node_serving "n$i" || return 1; done
}

# Any daemon of this state dir alive (slurmds of pool and dynamic nodes included)?
any_running() {
  local f
  for f in "$DIR"/run/*.pid; do
    [[ -f $f ]] && our_pid "$f" >/dev/null && return 0
  done
  return 1
}

cmd_start() {
  [[ $(id -u) == 0 ]] || die "run as root (slurmd must run as root)"
  command -v slurmctld >/dev/null || die "Slurm is not installed: run '$0 install' first"
  id -u "$REST_USER" >/dev/null 2>&1 || die "user $REST_USER missing: run '$0 install' first"
  if any_running; then
    start_missing
  else
    start_fresh
  fi
}

# Part of this Slurm runs (slurmrestd killed, slurmctld crashed, ...): start only what is dead.
# Nothing that runs is stopped, so no job is cancelled and no slurmd killed; the configuration,
# node states and job states stay as they are.
start_missing() {
  local started=() i
  [[ -s $CONF ]] || die "daemons of $DIR run but $CONF is missing: run '$0 stop' first"
  if ! our_pid "$DIR/run/munged.pid" >/dev/null; then
    start_munged
    started+=(munged)
  fi
  if ! our_pid "$DIR/run/mariadbd.pid" >/dev/null; then
    start_mariadb
    started+=(mariadb)
  fi
  if ! our_pid "$DIR/run/slurmdbd.pid" >/dev/null; then
    write_dbd_conf
    start_slurmdbd
    started+=(slurmdbd)
  fi
  if ! our_pid "$DIR/run/slurmctld.pid" >/dev/null; then
    # Without -c slurmctld recovers its saved state: jobs, and the nodes whose slurmd still run.
    setsid slurmctld -D -i -f "$CONF" </dev/null >>"$DIR/log/slurmctld.out" 2>&1 9>&- &
    echo $! >"$DIR/run/slurmctld.pid"
    started+=(slurmctld)
  fi
  wait_for 30 "slurmctld to answer 'scontrol ping'" ctld_up ||
    fail_start "slurmctld (pid $(our_pid "$DIR/run/slurmctld.pid" || echo none)) does not answer; '$0 stop' then '$0 start' restarts everything (and ends the jobs)"
  local nodes=()
  for ((i = 1; i <= NODES_UP; i++)); do
    if ! our_pid "$DIR/run/slurmd-n$i.pid" >/dev/null; then
      start_slurmd "n$i"
      nodes+=("n$i")
      started+=("slurmd n$i")
    fi
  done
  for i in "${nodes[@]}"; do
    wait_for 30 "$i to register" node_serving "$i" ||
      fail_start "$i did not register: $(sinfo -h -N -n "$i" -o '%N %T' 2>&1)"
  done
  write_token_file
  if ! { our_pid "$DIR/run/slurmrestd.pid" >/dev/null && rest_ping; }; then
    cmd_rest_stop TERM >/dev/null 2>&1 # one that runs but does not answer
    start_slurmrestd || fail_start "slurmrestd did not come up"
    started+=(slurmrestd)
  fi
  write_env
  if ((${#started[@]})); then
    log "partly running: started $(IFS=,; echo "${started[*]}" | sed 's/,/, /g'); running jobs and slurmds left alone"
  else
    log "already running and healthy ($DIR, slurmrestd on 127.0.0.1:$REST_PORT)"
  fi
}

# Nothing of this Slurm runs: a new configuration, node states forgotten, every daemon started.
start_fresh() {
  local p
  for p in "$CTLD_PORT" "$DBD_PORT" "$REST_PORT" "$DB_PORT" "$NODE_PORT_BASE"; do
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
  start_accounting
  setsid slurmctld -D -i -f "$CONF" </dev/null >>"$DIR/log/slurmctld.out" 2>&1 9>&- &
  echo $! >"$DIR/run/slurmctld.pid"
  wait_for 30 "slurmctld to answer 'scontrol ping'" ctld_up || fail_start "slurmctld did not come up"

  # Static nodes beyond NODES_UP stay without a slurmd (UNKNOWN, then DOWN/NOT_RESPONDING): enough
  # for listing, drain and undrain, which is what `tandem bench slurm-poll` measures at 1,000 nodes.
  [[ $NODES_UP =~ ^[0-9]+$ && $NODES_UP -le $NODES ]] ||
    die "TANDEM_SLURM_NODES_UP must be a number <= TANDEM_SLURM_NODES ($NODES), got '$NODES_UP'"
  local i
  for ((i = 1; i <= NODES_UP; i++)); do start_slurmd "n$i"; done
  wait_for 30 "static nodes n[1-$NODES_UP] to register" static_nodes_serving ||
    fail_start "static nodes did not register: $(sinfo -h -N -o '%N %T' 2>&1 | tr '\n' ' ')"

  write_token_file
  start_slurmrestd || fail_start "slurmrestd did not come up"
  write_env
  log "running: $(sinfo -h -o '%P %D %T' | tr '\n' ';') env file: $ENV_FILE"
}

start_slurmrestd() {
  # slurmrestd refuses root; SLURM_JWT=daemon makes it accept per-request tokens (without it
  # every request fails 401, "Rejecting thread config token").
  setsid env SLURM_JWT=daemon SLURM_CONF="$CONF" \
    setpriv --reuid="$REST_USER" --regid="$REST_USER" --clear-groups \
    slurmrestd -f "$CONF" -a rest_auth/jwt -s "openapi/$API" "127.0.0.1:$REST_PORT" \
    </dev/null >>"$DIR/log/slurmrestd.log" 2>&1 9>&- &
  echo $! >"$DIR/run/slurmrestd.pid"
  wait_for 20 "slurmrestd to answer /slurm/$API/ping" rest_ping
}

# ---------------------------------------------------------------- slurmrestd alone (fault tests)

# Stop (SIGTERM, or SIGKILL with "kill") only slurmrestd: slurmctld, slurmd and jobs keep running,
# as when the REST endpoint of a real cluster goes away.
cmd_rest_stop() {
  local how=${1:-TERM} pid
  if pid=$(our_pid "$DIR/run/slurmrestd.pid"); then
    if [[ $how == KILL ]]; then
      kill -KILL "$pid" 2>/dev/null || true
      wait_for 10 "slurmrestd (pid $pid) to die" bash -c "! kill -0 $pid" || true
    else
      terminate 10 "$pid"
    fi
    log "slurmrestd stopped (SIG$how, pid $pid)"
  else
    log "slurmrestd was not running"
  fi
  rm -f "$DIR/run/slurmrestd.pid"
}

cmd_rest_start() {
  our_pid "$DIR/run/slurmctld.pid" >/dev/null && ctld_up || die "slurmctld is not running: run '$0 start'"
  if our_pid "$DIR/run/slurmrestd.pid" >/dev/null && rest_ping; then
    log "slurmrestd already running"
    return 0
  fi
  start_slurmrestd || {
    tail -n 20 "$DIR/log/slurmrestd.log" >&2 || true
    die "slurmrestd did not come up"
  }
  log "slurmrestd running on 127.0.0.1:$REST_PORT"
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
  stop_accounting
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

# ---------------------------------------------------------------- dynamic nodes

# A dynamic node as the dev kubelet runs one (docs/slurm-local.md, "Dynamic nodes"): its own config
# dir (slurm.conf copy + gres.conf with fake GPU files from Gres=), any earlier record removed, then
# `slurmd -Z --conf CONF`. One at a time: slurmctld reaches every dynamic node at SlurmdPort.
cmd_dyn_up() {
  local name=${1:?usage: dyn-up NAME [CONF]} conf=${2:-} dir gres entry n t c next=0 i
  [[ $name =~ ^[a-z0-9][a-z0-9-]*$ ]] || die "bad node name '$name'"
  if is_pool_node "$name" || [[ $name =~ ^n[0-9]+$ ]]; then
    die "'$name' is declared in slurm.conf: use node-up"
  fi
  [[ $conf != *NodeName=* && $conf != *Port=* ]] || die "--conf must not set NodeName= or Port="
  ctld_up || die "slurmctld is not running: run '$0 start' first"
  dir=$DIR/dyn/$name
  install -d -m 755 "$dir/dev" "$DIR/state/d/$name"
  cp "$CONF" "$dir/slurm.conf"
  printf '# Written by slurm-local.sh dyn-up\nAutoDetect=off\n' >"$dir/gres.conf"
  gres=$(tr ' ' '\n' <<<"$conf" | sed -n 's/^[Gg][Rr][Ee][Ss]=//p')
  IFS=',' read -ra entries <<<"$gres"
  for entry in "${entries[@]}"; do
    [[ -z $entry ]] && continue
    IFS=':' read -r n t c <<<"$entry"
    [[ -z $c ]] && { c=$t; t=""; }
    [[ $c =~ ^[0-9]+$ ]] || die "cannot read GRES entry '$entry'"
    if [[ $n != gpu ]]; then
      echo "NodeName=$name Name=$n${t:+ Type=$t} Count=$c" >>"$dir/gres.conf"
      continue
    fi
    for ((i = next; i < next + c; i++)); do ln -sfn /dev/null "$dir/dev/gpu$i"; done
    echo "NodeName=$name Name=gpu${t:+ Type=$t} File=$dir/dev/gpu[$next-$((next + c - 1))]" >>"$dir/gres.conf"
    next=$((next + c))
  done
  if our_pid "$DIR/run/slurmd-$name.pid" >/dev/null; then
    log "slurmd for $name already running"
  else
    timeout 10 scontrol delete nodename="$name" >/dev/null 2>&1 || true
    rm -f "$DIR/run/slurmd-$name.pid"
    local args=(-D -Z -N "$name" -f "$dir/slurm.conf")
    [[ -n $conf ]] && args+=(--conf "$conf")
    setsid "$SLURMD_BIN" "${args[@]}" </dev/null >>"$DIR/log/slurmd-$name.out" 2>&1 9>&- &
    echo $! >"$DIR/run/slurmd-$name.pid"
  fi
  wait_for 30 "$name to register" node_serving "$name" || {
    tail -n 20 "$DIR/log/slurmd-$name.log" >&2 2>/dev/null || true
    die "$name did not register"
  }
  log "$name is up (dynamic)"
}

# Ends the dynamic node's jobs (DOWN while slurmd runs), stops its slurmd, deletes its record.
cmd_dyn_down() {
  local name=${1:?usage: dyn-down NAME} pid
  if is_pool_node "$name" || [[ $name =~ ^n[0-9]+$ ]]; then
    die "'$name' is declared in slurm.conf: use node-down (scontrol delete would remove it)"
  fi
  if ctld_up && node_serving "$name"; then
    timeout 10 scontrol update NodeName="$name" State=DOWN Reason="slurm-local dyn-down" || true
    wait_for 15 "jobs on $name to end" bash -c "[[ -z \$(squeue -h -w '$name' -t R,CG,S -o %A 2>/dev/null) ]]" ||
      log "jobs on $name did not end in time; stopping its slurmd anyway"
  fi
  if pid=$(our_pid "$DIR/run/slurmd-$name.pid"); then terminate 10 "$pid"; fi
  rm -f "$DIR/run/slurmd-$name.pid"
  timeout 10 scontrol delete nodename="$name" >/dev/null 2>&1 || true
  log "$name is gone"
}
