#!/bin/sh
set -eu
if [ "${1:-}" = redis-server ]; then
    shift
    exec setpriv --reuid=redis --regid=redis --init-groups redis-server --bind '* -::*' --protected-mode no "$@"
fi
exec "$@"
