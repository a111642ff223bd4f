#!/usr/bin/env bash
# Refreshes the files helm/tandem carries that are made elsewhere (Helm reads only files inside the
# chart): the NodeSet CRD the build generates from the Java classes, and docs/grafana-dashboard.json.
# The chart module's ChartFilesTest fails while a copy differs. Run from anywhere:
#   scripts/chart-files.sh            # builds activities (process-classes) first, then copies
#   scripts/chart-files.sh --no-build # copies what activities/target already holds
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ ${1:-} != --no-build ]]; then
  ./mvnw -q -B -pl activities process-classes
fi
cp activities/target/classes/META-INF/fabric8/nodesets.tandem.dev-v1.yml helm/tandem/crds/
cp docs/grafana-dashboard.json helm/tandem/files/grafana-dashboard.json
echo "chart-files: helm/tandem/crds and helm/tandem/files refreshed"
