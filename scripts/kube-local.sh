#!/usr/bin/env bash
# A real Kubernetes control plane on 127.0.0.1, for development and tests: etcd, kube-apiserver,
# kube-controller-manager and kube-scheduler of one Kubernetes release, built from Go modules.
#
#   scripts/kube-local.sh install | installed | path | start | stop | kill | status | kubeconfig
#
# install     builds the binaries once (go build; cached by version) unless each is found in
#             KUBEBUILDER_ASSETS, the cache or on PATH; installed: exit 0 when no build is needed; path
#             prints the binary it uses for each (installing first).
# start       creates the cluster's keys and certificates once per state dir, starts the four
#             components and waits until the API server is ready and the controllers and the
#             scheduler are healthy. A plane already running from this state dir is left as it is.
# stop        SIGTERM to each (scheduler, controller manager, API server, etcd), SIGKILL after
#             10 s; kill: SIGKILL at once. etcd's data stays: a started plane has what it had.
# kubeconfig  prints the path of the admin kubeconfig (cluster-admin by a client certificate).
#
# Environment (all optional):
#   TANDEM_KUBE_DIR    state dir: pki/, etcd/, admin.kubeconfig, audit.log, *.log, *.pid
#                      (/var/tmp/tandem-kube)
#   TANDEM_KUBE_PORT   the API server's port; etcd takes the next two, the controller manager
#                      and the scheduler the two after                          (6443)
#   TANDEM_CACHE_DIR   where built binaries are kept across clones              (/var/cache/tandem)
#   KUBEBUILDER_ASSETS a directory of binaries to use as they are (envtest's layout)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
MODULE_DIR=$HERE/kube-local
# The one place the release is pinned: the module that builds it.
VERSION=$(sed -n 's/^[[:space:]]*k8s.io\/kubernetes \(v[0-9.]*\).*/\1/p' "$MODULE_DIR/go.mod")
[[ -n $VERSION ]] || {
  echo "kube-local: no k8s.io/kubernetes version in $MODULE_DIR/go.mod" >&2
  exit 1
}
DIR=${TANDEM_KUBE_DIR:-/var/tmp/tandem-kube}
PORT=${TANDEM_KUBE_PORT:-6443}
ETCD_PORT=$((PORT + 1))
ETCD_PEER_PORT=$((PORT + 2))
KCM_PORT=$((PORT + 3))
SCHEDULER_PORT=$((PORT + 4))
CACHE=${TANDEM_CACHE_DIR:-/var/cache/tandem}/kubernetes-$VERSION
PKI=$DIR/pki
BINARIES=(etcd kube-apiserver kube-controller-manager kube-scheduler kubectl)
COMPONENTS=(etcd kube-apiserver kube-controller-manager kube-scheduler) # in start order

log() { echo "kube-local: $*" >&2; }
die() {
  log "$*"
  exit 1
}

# The binary named $1: KUBEBUILDER_ASSETS, then the pinned build, then PATH. Once one component is
# missing everywhere, install builds all five, so the plane runs one release.
binary() {
  if [[ -n ${KUBEBUILDER_ASSETS:-} && -x $KUBEBUILDER_ASSETS/$1 ]]; then
    echo "$KUBEBUILDER_ASSETS/$1"
  elif [[ -x $CACHE/$1 ]]; then
    echo "$CACHE/$1"
  elif command -v "$1" >/dev/null; then
    command -v "$1"
  else
    return 1
  fi
}

missing() {
  local b out=()
  for b in "${BINARIES[@]}"; do
    binary "$b" >/dev/null || out+=("$b")
  done
  echo "${out[*]}"
}

install() {
  local need
  need=$(missing)
  if [[ -z $need ]]; then
    return 0
  fi
  command -v go >/dev/null || die "Go 1.26 or newer is needed to build Kubernetes $VERSION" \
    "(https://go.dev/doc/install), or put $need on PATH or in KUBEBUILDER_ASSETS"
  local gov
  gov=$(go env GOVERSION | sed 's/^go//')
  if [[ $(printf '%s\n1.26\n' "$gov" | sort -V | head -n1) != 1.26 ]]; then
    die "Go $gov is too old to build Kubernetes $VERSION (1.26 or newer; https://go.dev/doc/install)"
  fi
  mkdir -p "$CACHE"
  log "building Kubernetes $VERSION ($need) from Go modules into $CACHE" \
    "(once; about 8 minutes on 2 cores)"
  local tmp minor=${VERSION#v1.}
  minor=${minor%%.*}
  tmp=$(mktemp -d "$CACHE/.build.XXXXXX")
  # What `kubectl version` and /version report; a build from modules has no git tree to ask.
  local v=k8s.io/component-base/version cv=k8s.io/client-go/pkg/version ld="-s -w" p
  for p in $v $cv; do
    ld+=" -X $p.gitVersion=$VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  if ! (cd "$MODULE_DIR" && go build -trimpath -ldflags "$ld" -o "$tmp/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl ./etcd); then
    rm -rf "$tmp"
    die "go build of Kubernetes $VERSION failed (above). It needs the Go module proxy" \
      "($(go env GOPROXY)); behind a proxy set GOPROXY, or put the binaries on PATH"
  fi
  for p in "${BINARIES[@]}"; do
    mv "$tmp/$p" "$CACHE/$p"
  done
  rm -rf "$tmp"
  log "built $("$CACHE/kube-apiserver" --version) and etcd $("$CACHE/etcd" --version | sed -n 's/^etcd Version: //p')"
}

# --- keys and certificates (once per state dir) ---------------------------------------------

# A client certificate for user $2 in group $3 (may be empty), signed by the cluster CA, as $1.crt.
client_cert() {
  local subj="/CN=$2"
  [[ -n $3 ]] && subj="/O=$3/CN=$2"
  openssl req -new -newkey rsa:2048 -nodes -keyout "$PKI/$1.key" -subj "$subj" \
    -out "$PKI/$1.csr" 2>/dev/null
  openssl x509 -req -in "$PKI/$1.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
    -days 3650 -out "$PKI/$1.crt" 2>/dev/null
  rm -f "$PKI/$1.csr"
}

pki() {
  [[ -f $PKI/done ]] && return 0
  command -v openssl >/dev/null || die "openssl is needed for the cluster's certificates (apt-get install openssl)"
  rm -rf "$PKI"
  mkdir -p "$PKI"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$PKI/ca.key" -out "$PKI/ca.crt" -days 3650 \
    -subj "/CN=tandem-local-ca" 2>/dev/null
  openssl req -new -newkey rsa:2048 -nodes -keyout "$PKI/apiserver.key" -subj "/CN=kube-apiserver" \
    -out "$PKI/apiserver.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc\n' \
    >"$PKI/apiserver.ext"
  openssl x509 -req -in "$PKI/apiserver.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
    -days 3650 -extfile "$PKI/apiserver.ext" -out "$PKI/apiserver.crt" 2>/dev/null
  client_cert admin tandem-admin system:masters
  client_cert controller-manager system:kube-controller-manager ""
  client_cert scheduler system:kube-scheduler ""
  openssl genrsa -out "$PKI/sa.key" 2048 2>/dev/null
  openssl rsa -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
  touch "$PKI/done"
}

# A kubeconfig for the client certificate $1, as $DIR/$1.kubeconfig.
kubeconfig_for() {
  local b64='base64 -w0'
  cat >"$DIR/$1.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster:
    server: https://127.0.0.1:$PORT
    certificate-authority-data: $($b64 <"$PKI/ca.crt")
users:
- name: $1
  user:
    client-certificate-data: $($b64 <"$PKI/$1.crt")
    client-key-data: $($b64 <"$PKI/$1.key")
contexts:
- name: local
  context: {cluster: local, user: $1}
current-context: local
EOF
  chmod 600 "$DIR/$1.kubeconfig"
}

# --- processes ---------------------------------------------------------------------------------

running_pid() {
  [[ -f $DIR/$1.pid ]] || return 1
  local pid
  pid=$(cat "$DIR/$1.pid")
  kill -0 "$pid" 2>/dev/null || return 1
  echo "$pid"
}

args_for() {
  case $1 in
  etcd)
    # --unsafe-no-fsync: a killed process loses nothing (the page cache keeps it); only a power cut
    # could, and this plane is for development and tests. fsync per write makes a 1,000-node
    # fleet wait on the disk.
    echo --name local --data-dir "$DIR/etcd" \
      --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
      --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
      --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
      --initial-cluster "local=http://127.0.0.1:$ETCD_PEER_PORT" \
      --unsafe-no-fsync --log-level warn
    ;;
  kube-apiserver)
    # A hardened cluster's checks: RBAC and the Node authorizer, ServiceAccount tokens,
    # OwnerReferencesPermissionEnforcement (a controller setting blockOwnerDeletion needs
    # <kind>/finalizers), NodeRestriction, and an audit log of every request. The endpoint reconciler
    # is off: 127.0.0.1 is no address a Service may point at.
    echo --etcd-servers "http://127.0.0.1:$ETCD_PORT" \
      --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$PORT" \
      --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
      --client-ca-file "$PKI/ca.crt" \
      --service-account-issuer https://kubernetes.default.svc.cluster.local \
      --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
      --service-cluster-ip-range 10.96.0.0/16 \
      --authorization-mode Node,RBAC \
      --enable-admission-plugins NodeRestriction,OwnerReferencesPermissionEnforcement \
      --audit-policy-file "$DIR/audit-policy.yaml" --audit-log-path "$DIR/audit.log" \
      --audit-log-maxsize 200 --audit-log-maxbackup 1 \
      --endpoint-reconciler-type none --kubelet-preferred-address-types InternalIP \
      --profiling=false --v 1
    ;;
  kube-controller-manager)
    # Every default controller, each with its own ServiceAccount's token (so RBAC applies to them as
    # on a cluster): the garbage collector, the disruption controller, node lifecycle (NotReady,
    # the not-ready and unreachable taints and their evictions). A node whose Lease is not renewed
    # is lost after 20 s (50 s by default), so that tests of a lost node run in seconds; the local
    # kubelet renews every 5 s.
    echo --kubeconfig "$DIR/controller-manager.kubeconfig" \
      --authentication-kubeconfig "$DIR/controller-manager.kubeconfig" \
      --authorization-kubeconfig "$DIR/controller-manager.kubeconfig" \
      --use-service-account-credentials \
      --service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt" \
      --cluster-signing-cert-file "$PKI/ca.crt" --cluster-signing-key-file "$PKI/ca.key" \
      --node-monitor-grace-period "${TANDEM_KUBE_NODE_GRACE:-20s}" --node-monitor-period 2s \
      --bind-address 127.0.0.1 --secure-port "$KCM_PORT" --leader-elect=false --profiling=false --v 1
    ;;
  kube-scheduler)
    echo --kubeconfig "$DIR/scheduler.kubeconfig" \
      --authentication-kubeconfig "$DIR/scheduler.kubeconfig" \
      --authorization-kubeconfig "$DIR/scheduler.kubeconfig" \
      --bind-address 127.0.0.1 --secure-port "$SCHEDULER_PORT" --leader-elect=false --profiling=false --v 1
    ;;
  esac
}

audit_policy() {
  # Metadata (who, what, which object, the answer) for every request but reads of Events and the
  # Leases of node heartbeats and leader election, which would fill the log with nothing to check.
  cat >"$DIR/audit-policy.yaml" <<'EOF'
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  resources: [{group: coordination.k8s.io, resources: [leases]}]
  namespaces: [kube-node-lease, kube-system]
- level: None
  nonResourceURLs: ["/healthz*", "/livez*", "/readyz*", "/version"]
- level: Metadata
EOF
}

# The API server's certificate is the cluster CA's; the controller manager and the scheduler serve
# their health endpoints with a certificate of their own making, so those are not verified.
healthy() {
  local url=$1 verify=(--cacert "$PKI/ca.crt")
  [[ $url == "https://127.0.0.1:$PORT/"* ]] || verify=(-k)
  curl -sf --max-time 2 "${verify[@]}" --cert "$PKI/admin.crt" --key "$PKI/admin.key" \
    "$url" >/dev/null 2>&1
}

start_one() {
  local name=$1 bin pid
  if pid=$(running_pid "$name"); then
    return 0
  fi
  bin=$(binary "$name")
  # shellcheck disable=SC2046 # the arguments are words without spaces
  setsid "$bin" $(args_for "$name") >>"$DIR/$name.log" 2>&1 </dev/null &
  echo $! >"$DIR/$name.pid"
}

await() {
  local name=$1 url=$2 pid
  pid=$(cat "$DIR/$name.pid")
  for _ in $(seq 1 240); do
    kill -0 "$pid" 2>/dev/null || {
      tail -n 20 "$DIR/$name.log" >&2
      die "$name exited at start (log above, $DIR/$name.log); is its port taken?"
    }
    if [[ $url == etcd ]]; then
      curl -sf --max-time 2 "http://127.0.0.1:$ETCD_PORT/health" | grep -q '"health":"true"' && return 0
    elif healthy "$url"; then
      return 0
    fi
    sleep 0.5
  done
  die "$name not healthy after 120 s (log: $DIR/$name.log)"
}

start() {
  install
  command -v curl >/dev/null || die "curl is needed (apt-get install curl)"
  mkdir -p "$DIR"
  pki
  audit_policy
  for name in admin controller-manager scheduler; do
    kubeconfig_for "$name"
  done
  log "starting Kubernetes $VERSION on https://127.0.0.1:$PORT (state $DIR)"
  start_one etcd
  await etcd etcd
  start_one kube-apiserver
  await kube-apiserver "https://127.0.0.1:$PORT/readyz"
  start_one kube-controller-manager
  start_one kube-scheduler
  await kube-controller-manager "https://127.0.0.1:$KCM_PORT/healthz"
  await kube-scheduler "https://127.0.0.1:$SCHEDULER_PORT/healthz"
  log "running; kubeconfig $DIR/admin.kubeconfig"
}

stop_one() {
  local name=$1 signal=$2 pid
  if pid=$(running_pid "$name"); then
    kill "-$signal" "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    if kill -0 "$pid" 2>/dev/null; then
      log "$name (pid $pid) did not stop in 10 s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  rm -f "$DIR/$name.pid"
}

stop() {
  local i
  for ((i = ${#COMPONENTS[@]} - 1; i >= 0; i--)); do
    stop_one "${COMPONENTS[$i]}" "$1"
  done
}

status() {
  local name pid down=0
  for name in "${COMPONENTS[@]}"; do
    if pid=$(running_pid "$name"); then
      echo "$name running (pid $pid)"
    else
      echo "$name not running"
      down=1
    fi
  done
  [[ $down == 0 ]] && echo "API https://127.0.0.1:$PORT, kubeconfig $DIR/admin.kubeconfig"
  return $((down * 3))
}

case ${1:-} in
install) install ;;
installed) [[ -z $(missing) ]] ;;
path)
  install
  for b in "${BINARIES[@]}"; do echo "$b $(binary "$b")"; done
  ;;
start) start ;;
stop) stop TERM && log "stopped" ;;
kill) stop KILL ;;
status) status ;;
kubeconfig) echo "$DIR/admin.kubeconfig" ;;
*)
  sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
  ;;
esac
