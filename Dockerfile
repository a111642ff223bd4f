# syntax=docker/dockerfile:1
# The Tandem image: the production `tandem` CLI (worker, drain, undrain, status, history, pods; no
# dev stack) on a JRE 17, as a non-root user. `docker run IMAGE` runs `tandem worker`;
# `docker run IMAGE status gpu-a` runs another command. See docs/install.md#the-image.
#   docker build -t ghcr.io/tandem-dev/tandem:0.1.0 .

# 1. Build with the Maven wrapper. scripts/image-layout.sh builds the starters module and what it needs
#    (-DskipTests) and lays out /opt/tandem/lib (jars) and /opt/tandem/bin/tandem (the launcher);
#    ImageLayoutIT runs the same script in CI and the laid-out tandem with plain java.
FROM eclipse-temurin:17-jdk AS build
WORKDIR /src
COPY . .
# A cache mount keeps the Maven repository (and the wrapper's Maven) across builds.
RUN --mount=type=cache,target=/root/.m2 scripts/image-layout.sh /opt/tandem

# 2. Run on the JRE only: no JDK, no Maven, no sources.
FROM eclipse-temurin:17-jre
RUN groupadd --system --gid 10001 tandem \
 && useradd --system --uid 10001 --gid tandem --create-home --home-dir /home/tandem \
      --shell /usr/sbin/nologin tandem
COPY --from=build /opt/tandem /opt/tandem
RUN ln -s /opt/tandem/bin/tandem /usr/local/bin/tandem
# Heap from the container's memory limit; a worker out of memory exits so Kubernetes restarts it.
ENV TANDEM_JAVA_OPTS="-XX:MaxRAMPercentage=75 -XX:+ExitOnOutOfMemoryError"
# Numeric, so `runAsNonRoot: true` can verify it without a passwd lookup.
USER 10001:10001
WORKDIR /home/tandem
# /metrics, /healthz, /readyz (TANDEM_HTTP_PORT).
EXPOSE 9090
ENTRYPOINT ["tandem"]
CMD ["worker"]
