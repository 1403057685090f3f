#!/bin/sh
# Makes the debian:bookworm base image from Debian's archive when podman does
# not have it (no image registry is reachable on the project's machines):
# `debootstrap --variant=minbase bookworm`, packed into a tarball that is kept
# in the cache folder, then `podman import`. Later runs import the cached
# tarball (seconds) or find the image already there (nothing to do).
#
#   deploy/podman/base-image.sh [CACHE_DIR]     (default /var/cache/mars-deploy)
#
# Needs root, podman and debootstrap. Prints one line saying what it did.
set -eu
CACHE=${1:-${MARS_DEPLOY_CACHE:-/var/cache/mars-deploy}}
IMAGE=docker.io/library/debian:bookworm
TARBALL=$CACHE/debian-bookworm-minbase.tar
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

if podman image exists "$IMAGE"; then
  echo "base-image: $IMAGE already in podman's store"
  exit 0
fi
mkdir -p "$CACHE"
if [ ! -s "$TARBALL" ]; then
  command -v debootstrap >/dev/null || { echo "base-image: debootstrap is missing (apt-get install debootstrap)" >&2; exit 1; }
  root=$(mktemp -d "$CACHE/rootfs.XXXXXX")
  trap 'rm -rf "$root"' EXIT
  echo "base-image: building $IMAGE from Debian's archive (debootstrap --variant=minbase bookworm; a few minutes)"
  if ! debootstrap --variant=minbase bookworm "$root" "$MIRROR" >"$CACHE/debootstrap.log" 2>&1; then
    echo "base-image: debootstrap failed (see $CACHE/debootstrap.log):" >&2
    tail -5 "$CACHE/debootstrap.log" >&2
    exit 1
  fi
  # What an official image leaves out: the package lists and caches.
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
  tar -C "$root" --numeric-owner -cf "$TARBALL.tmp" .
  mv "$TARBALL.tmp" "$TARBALL"
fi
podman import -q --change 'CMD ["bash"]' "$TARBALL" "$IMAGE" >/dev/null
echo "base-image: imported $IMAGE from $TARBALL"
