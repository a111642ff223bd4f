#!/bin/sh
# Runs beside slurmctld when Tandem publishes the topology (docs/topology.md): the kubelet refreshes
# the mounted file from ConfigMap tandem-topology, and slurmctld reads it only at start and on
# `scontrol reconfigure`. This loop asks for that reconfigure once per change of the file.
#
#   TOPOLOGY_FILE    the file to watch                      (/etc/slurm/topology.yaml)
#   RELOAD_INTERVAL  seconds between checks                 (10)
#   RELOAD_PASSES    stop after this many checks; 0 = never (0; tests set it)
#
# Fail closed: a reconfigure that fails is retried on the next check, and the change counts as
# handled only once scontrol succeeded.
file=${TOPOLOGY_FILE:-/etc/slurm/topology.yaml}
interval=${RELOAD_INTERVAL:-10}
passes=${RELOAD_PASSES:-0}
last=""
n=0
while [ "$passes" -eq 0 ] || [ "$n" -lt "$passes" ]; do
  n=$((n + 1))
  # cksum follows the projected volume's symlinks; a missing file (not yet published) is "none".
  sum=$(cksum <"$file" 2>/dev/null || echo none)
  if [ -z "$last" ]; then
    last=$sum # slurmctld read this version when it started
  elif [ "$sum" != "$last" ]; then
    if scontrol reconfigure; then
      echo "topology-reload: $file changed; slurmctld reconfigured"
      last=$sum
    else
      echo "topology-reload: $file changed but scontrol reconfigure failed; retrying" >&2
    fi
  fi
  sleep "$interval"
done
