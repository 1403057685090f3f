# The project's one image, on debian:bookworm, built with the same steps as
# the README: the Debian packages scripts/setup.sh lists, then `make`. It holds
# the programs (build/bin on PATH), PostgreSQL and Redis, so docker-compose.yml
# runs every service from it and needs no other image (none has to be pulled
# but debian:bookworm).
#
#   docker build -t mars-c .        (or: podman build -t mars-c .)
#
# The engine is compiled with -march=native (Makefile): the image runs on CPUs
# with at least the build machine's instruction set.
FROM debian:bookworm

ENV DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8

WORKDIR /opt/mars

# Packages first, in a layer of their own, so a source change does not
# reinstall them: `scripts/setup.sh run` is the build list plus PostgreSQL and
# Redis; curl is for the health checks of docker-compose.yml.
COPY scripts/setup.sh scripts/setup.sh
RUN apt-get update -qq \
 && scripts/setup.sh run \
 && apt-get install -y -qq --no-install-recommends curl ca-certificates \
 && rm -rf /var/lib/apt/lists/*

COPY . .
# A build/ folder copied from the host is not this image's: start clean.
# `make` as in the README, on every core (its setup step finds nothing
# missing here, so running it beside the build is harmless).
RUN rm -rf build && make -j"$(nproc)"

ENV PATH=/opt/mars/build/bin:/usr/lib/postgresql/15/bin:$PATH

# 7005: REST API and dashboard (mars-supervisor -w); 7103: supervisor service
# port; 7200: worker service port.
EXPOSE 7005 7103 7200

CMD ["mars-supervisor", "--help"]
