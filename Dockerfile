# The project's images, on debian:bookworm, in three stages (docs/deploy.md):
#
# - build: the toolchain and -dev packages (scripts/setup.sh image-build) and
#   `make` of the release programs and the dashboard, compiled for a baseline
#   x86-64 level (ARCH, default x86-64-v2: any x86-64 CPU of the last decade)
#   rather than the build machine's own (-march=native, the Makefile's
#   default). No sanitizer build, no tests, no debug information.
# - db (`--target db`, image mars-c-db): PostgreSQL 15 and Redis 7 from
#   Debian, for docker-compose.yml's postgres and redis services, so that
#   nothing but debian:bookworm is ever pulled. Kubernetes (deploy/k8s) can
#   use it too, or any PostgreSQL and Redis.
# - runtime (the last stage, the default target; image mars-c): the shared
#   libraries the programs load (scripts/setup.sh image-run), the four
#   programs, ui/dist and db/migrations. No compiler, no PostgreSQL server.
#
#   docker build -t mars-c .                     (or: podman build -t mars-c .)
#   docker build --target db -t mars-c-db .
#   docker build --build-arg ARCH=x86-64-v3 -t mars-c .     (AVX2 CPUs only)
#
# The engine's hot kernels (element-wise, reductions, random) are compiled for
# AVX2 and AVX-512 as well and picked at run time by CPU features (the
# Makefile's KERN_LEVELS; MARS_CPU_LEVEL forces one), and OpenBLAS (Debian's)
# picks its own kernels so too: wide vectors where the CPU has them, whatever
# ARCH says (docs/deploy.md, "CPU level").

FROM debian:bookworm AS build
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
WORKDIR /opt/mars
# Packages first, in a layer of their own, so a source change does not
# reinstall them.
COPY scripts/setup.sh scripts/setup.sh
RUN apt-get update -qq \
 && scripts/setup.sh image-build \
 && rm -rf /var/lib/apt/lists/*
COPY . .
ARG ARCH=x86-64-v2
# A build/ or ui/dist copied from the host is not this image's: start clean.
RUN rm -rf build ui/dist \
 && make -j"$(nproc)" ARCH="$ARCH" build/bin/mars-run build/bin/mars-supervisor build/bin/mars-gateway \
      build/bin/mars-worker ui/dist/index.html
# The image carries no debug information (the Makefile compiles with -g).
RUN strip --strip-debug build/bin/mars-run build/bin/mars-supervisor build/bin/mars-gateway build/bin/mars-worker

FROM debian:bookworm AS db
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
RUN printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-exclude /usr/share/man/*' \
      'path-exclude /usr/share/info/*' >/etc/dpkg/dpkg.cfg.d/01-mars-slim
COPY scripts/setup.sh /tmp/setup.sh
# Debian's postgresql package makes a cluster of its own on install: the
# compose file's postgres service runs initdb itself, in
# /var/lib/postgresql/mars (where deploy/compose/postgres-volume.yml mounts
# its volume; made here so a new volume starts owned by postgres).
# The postgres and redis users get fixed ids (999, 998) before the packages
# would pick some, so that Kubernetes can run the containers as them
# (runAsUser, fsGroup in deploy/k8s).
RUN groupadd --system --gid 999 postgres \
 && useradd --system --uid 999 --gid 999 --home-dir /var/lib/postgresql --shell /bin/bash postgres \
 && groupadd --system --gid 998 redis \
 && useradd --system --uid 998 --gid 998 --home-dir /var/lib/redis --shell /usr/sbin/nologin redis \
 && mkdir -p /etc/postgresql-common \
 && echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.conf \
 && apt-get update -qq \
 && /tmp/setup.sh image-db \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /tmp/setup.sh \
 && install -d -o postgres -g postgres -m 700 /var/lib/postgresql/mars
ENV PATH=/usr/lib/postgresql/15/bin:$PATH
EXPOSE 5432 6379
CMD ["redis-server", "--help"]

FROM debian:bookworm AS runtime
ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8
# No documentation, manual pages or translations in the image.
RUN printf '%s\n' 'path-exclude /usr/share/doc/*' 'path-exclude /usr/share/man/*' \
      'path-exclude /usr/share/info/*' 'path-exclude /usr/share/locale/*' >/etc/dpkg/dpkg.cfg.d/01-mars-slim
COPY scripts/setup.sh /tmp/setup.sh
RUN apt-get update -qq \
 && /tmp/setup.sh image-run \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/debconf/*-old /tmp/setup.sh \
 && useradd --uid 10001 --user-group --home-dir /opt/mars --no-create-home --shell /usr/sbin/nologin mars \
 && install -d -o mars -g mars /var/lib/mars /var/lib/mars/spill
WORKDIR /opt/mars
# The programs find db/migrations and ui/dist beside their folder
# (services/README.md: --migrations-dir, --ui-dir).
COPY --from=build /opt/mars/build/bin/mars-run /opt/mars/build/bin/mars-supervisor \
     /opt/mars/build/bin/mars-gateway /opt/mars/build/bin/mars-worker /opt/mars/bin/
COPY --from=build /opt/mars/ui/dist /opt/mars/ui/dist
COPY db/migrations /opt/mars/db/migrations
ENV PATH=/opt/mars/bin:$PATH
# A numeric user, so that Kubernetes' runAsNonRoot can check it.
USER 10001
# 7005: REST API and dashboard (mars-supervisor -w, mars-gateway -p);
# 7103: supervisor service port; 7200: worker service port.
EXPOSE 7005 7103 7200
CMD ["mars-supervisor", "--help"]
