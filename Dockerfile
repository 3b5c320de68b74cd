# herd-server in two stages: build on Debian 12 with the packages scripts/ install natively (one
# list, scripts/packages-build.txt), then run on debian:12-slim as a non-root user with what
# `cmake --install` lays out: bin/herd-server, bin/herd-ctl and share/herd/{web,js,scenarios}, which
# the server finds relative to itself. The package layer comes first, so a source change only
# rebuilds from the COPY of the sources on, through the compiler's cache.
FROM debian:12 AS build
COPY scripts/packages-build.txt /tmp/packages-build.txt
RUN apt-get update \
 && grep -v '^#' /tmp/packages-build.txt | xargs env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
# The compiler's cache outlives each image build (a cache mount, kept by the engine beside its
# layers, never in the image): a source change recompiles what it touches, as the native build
# does, instead of the whole tree.
ENV CCACHE_DIR=/var/cache/herd-ccache \
    CCACHE_BASEDIR=/src
RUN --mount=type=cache,target=/var/cache/herd-ccache,sharing=locked \
    cmake --preset container \
 && cmake --build --preset container \
 && DESTDIR=/stage cmake --install build --prefix /usr/local --strip --component runtime

FROM debian:12-slim
RUN useradd --system --uid 10001 --home-dir /var/lib/herd --create-home herd
COPY --from=build /stage/usr/local /usr/local
ENV HERD_PORT=8080 \
    HERD_SCENARIO=default
USER herd
WORKDIR /var/lib/herd
EXPOSE 8080
# The server's own binary asks /healthz (herd-server --probe): no HTTP client in the image.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 CMD ["herd-server", "--probe"]
ENTRYPOINT ["herd-server"]
