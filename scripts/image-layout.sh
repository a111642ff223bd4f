#!/usr/bin/env bash
# Lays out the production tandem CLI (worker, drain, status, ...; no dev stack) in <dest>:
#   <dest>/lib/*.jar   tandem-starters and its runtime dependencies (starters/target/lib)
#   <dest>/bin/tandem  the launcher: java -cp '<dest>/lib/*' dev.tandem.cli.TandemCli "$@"
# The Dockerfile runs it; ImageLayoutIT runs it with --no-build after the build and runs the result.
#   scripts/image-layout.sh [--no-build] <dest>
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=1
if [[ ${1:-} == --no-build ]]; then
  build=0
  shift
fi
dest=${1:?usage: scripts/image-layout.sh [--no-build] <dest>}

if ((build)); then
  # starters' pom copies its runtime dependencies to starters/target/lib in the package phase.
  (cd "$root" && ./mvnw -B -q -pl starters -am package -DskipTests -Dspotless.check.skip=true)
fi

shopt -s nullglob
jars=("$root"/starters/target/tandem-starters-*.jar)
deps=("$root"/starters/target/lib/*.jar)
if ((${#jars[@]} != 1 || ${#deps[@]} == 0)); then
  echo "image-layout: expected one starters/target/tandem-starters-*.jar and starters/target/lib/*.jar;" \
    "build with: ./mvnw -pl starters -am package" >&2
  exit 1
fi

mkdir -p "$dest/bin"
rm -rf "$dest/lib"
mkdir "$dest/lib"
cp "${jars[0]}" "${deps[@]}" "$dest/lib/"

cat >"$dest/bin/tandem" <<'LAUNCHER'
#!/bin/sh
# The production tandem command (no dev stack). TANDEM_JAVA_OPTS adds JVM options.
set -e
home=$(dirname "$(dirname "$(readlink -f "$0")")")
java=java
if [ -n "${JAVA_HOME:-}" ]; then
  java="$JAVA_HOME/bin/java"
fi
# Word splitting of TANDEM_JAVA_OPTS is wanted: it holds several options.
# shellcheck disable=SC2086
exec "$java" ${TANDEM_JAVA_OPTS:-} -cp "$home/lib/*" dev.tandem.cli.TandemCli "$@"
LAUNCHER
chmod 755 "$dest/bin/tandem"
echo "image-layout: $dest/bin/tandem with $(($(ls "$dest/lib" | wc -l))) jars in $dest/lib" >&2
