#!/bin/sh
# Registers a cluster's QOS, accounts and users in Slurm's accounting database with sacctmgr,
# idempotently: what exists is updated, nothing is added twice. Run by the chart's accounting Job
# (templates/slurm/accounting.yaml) and by scripts/slurm-local.sh, so CI proves what the chart runs.
#
# Environment (sacctmgr finds slurmdbd through slurm.conf; SLURM_CONF may name it):
#   SLURM_CLUSTER   ClusterName
#   SLURM_QOS       space-separated name:priority:preempted,QOS  e.g. "low:0: normal:10:low"
#   SLURM_ACCOUNTS  space-separated name:parent (empty parent: under root)  e.g. "ml:research"
#   SLURM_USERS     space-separated name:default-account:account,account  e.g. "root:k8s:k8s,ml"
# Every account and user may use every QOS listed; a job's default QOS is `normal`.
set -eu

: "${SLURM_CLUSTER:?}"
qos_all=""
for q in ${SLURM_QOS:-}; do qos_all="${qos_all:+$qos_all,}${q%%:*}"; done

sm() { timeout 30 sacctmgr -i "$@"; }
# `add` refuses what exists ("Nothing new added"): then the entity is there, which is the goal.
add() { sm add "$@" >/dev/null 2>&1 || true; }

add cluster "$SLURM_CLUSTER"
sacctmgr -n -P show cluster format=cluster | grep -qx "$SLURM_CLUSTER" || {
  echo "slurm-accounting: cluster $SLURM_CLUSTER is not in the accounting database" >&2
  exit 1
}

if [ -n "$qos_all" ]; then add qos "$qos_all"; fi
# One listing, then only what differs: every sacctmgr call is a round trip to slurmdbd.
have_qos=$(sacctmgr -n -P show qos format=name,priority,preempt,preemptmode)
for q in ${SLURM_QOS:-}; do
  name=${q%%:*}
  rest=${q#*:}
  prio=${rest%%:*}
  preempt=${rest#*:}
  line=$(echo "$have_qos" | grep "^$name|" || true)
  old_prio=$(echo "$line" | cut -d'|' -f2)
  old_preempt=$(echo "$line" | cut -d'|' -f3)
  old_mode=$(echo "$line" | cut -d'|' -f4)
  if [ "$old_prio" != "$prio" ] || [ "$old_mode" != requeue ]; then
    sm modify qos where name="$name" set priority="$prio" preemptmode=requeue >/dev/null
  fi
  # The preempt list changes by single entries: setting the list it already has is refused
  # ("QOS Preemption loop detected"), and setting it empty leaves slurmdbd (22.05) refusing every
  # later change until it restarts.
  for p in $(echo "$old_preempt" | tr ',' ' '); do
    case ",$preempt," in *",$p,"*) ;; *) sm modify qos where name="$name" set preempt-="$p" >/dev/null ;; esac
  done
  for p in $(echo "$preempt" | tr ',' ' '); do
    case ",$old_preempt," in *",$p,"*) ;; *) sm modify qos where name="$name" set preempt+="$p" >/dev/null ;; esac
  done
done

# Accounts of this cluster (an association without a user): an account may exist in the database
# for another cluster only (one slurmdbd serves several), and then it is added here all the same.
have_accounts=$(sacctmgr -n -P show assoc where cluster="$SLURM_CLUSTER" format=account,user | awk -F'|' '$2 == "" {print $1}')
names=root
for a in ${SLURM_ACCOUNTS:-}; do
  name=${a%%:*}
  parent=${a#*:}
  names="$names,$name"
  if ! echo "$have_accounts" | grep -qx "$name"; then
    add account "$name" cluster="$SLURM_CLUSTER" ${parent:+parent="$parent"} description="$name" organization="$SLURM_CLUSTER"
  fi
done
if [ -n "$qos_all" ]; then
  sm modify account where name="$names" cluster="$SLURM_CLUSTER" set qos="$qos_all" defaultqos=normal >/dev/null
fi

for u in ${SLURM_USERS:-}; do
  name=${u%%:*}
  rest=${u#*:}
  default=${rest%%:*}
  accounts=${rest#*:}
  add user "$name" account="$accounts" cluster="$SLURM_CLUSTER"
  if [ -n "$qos_all" ]; then
    sm modify user where name="$name" cluster="$SLURM_CLUSTER" set defaultaccount="$default" qos="$qos_all" defaultqos=normal >/dev/null
  else
    sm modify user where name="$name" cluster="$SLURM_CLUSTER" set defaultaccount="$default" >/dev/null
  fi
done
echo "slurm-accounting: cluster $SLURM_CLUSTER registered (QOS: ${qos_all:-none})"
