#!/usr/bin/env bash
# Benchmarks the Slurm client against the local Slurm (scripts/slurm-local.sh start first):
#   scripts/bench-slurm.sh [--nodes 200] [--jobs 50] [--drains 50] [--node n1] [--env FILE]
# Builds the devstack module (no install) and runs dev.tandem.slurm.bench.SlurmClientBench.
set -euo pipefail
cd "$(dirname "$0")/.."
./mvnw -B -o -q -pl devstack -am package dependency:build-classpath -DskipTests \
  -Dmdep.outputFile=target/bench.classpath -DincludeScope=runtime
# Runtime scope has no logging binding: per-request debug lines would distort the figures.
exec java -Dslf4j.internal.verbosity=WARN -cp "devstack/target/classes:$(cat devstack/target/bench.classpath)" \
  dev.tandem.slurm.bench.SlurmClientBench "$@"
