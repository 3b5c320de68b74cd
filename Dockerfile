# herd-server in two stages: build on Debian 12 with the same packages scripts/lib.sh installs,
# run on debian:12-slim as a non-root user with only the binary, the viewer and the scenarios.
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      g++ cmake ninja-build ccache libboost1.81-dev nlohmann-json3-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY CMakeLists.txt ./
COPY protocol protocol
COPY server server
COPY clients clients
RUN cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHERD_BUILD_TESTS=OFF -DHERD_BUILD_VIEWER=OFF \
 && cmake --build build --target herd-server

FROM debian:12-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --home-dir /var/lib/herd --create-home herd
COPY --from=build /src/build/herd-server /usr/local/bin/herd-server
COPY clients/web /usr/share/herd/web
COPY server/scenarios /usr/share/herd/scenarios
ENV HERD_PORT=8080 \
    HERD_WEB_ROOT=/usr/share/herd/web \
    HERD_SCENARIO_DIR=/usr/share/herd/scenarios \
    HERD_SCENARIO=default
USER herd
WORKDIR /var/lib/herd
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD curl -fsS "http://127.0.0.1:${HERD_PORT}/healthz" || exit 1
ENTRYPOINT ["/usr/local/bin/herd-server"]
