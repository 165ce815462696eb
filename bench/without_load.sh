#!/usr/bin/env bash
# With and without a mechanism of ours under wrk, in alternating rounds (docs/performance.md, "Machinery kept and
# why"): per round and per variant a fresh gunicorn serving bench/without.py's app with BENCH_WITHOUT set, the
# bench member signed in through /auth, then per URL make bench's load (3 s warm-up, wrk -t2 -c16 for 15 s) with
# bench/cpu.py beside it. Prints the server CPU per request (gunicorn + PostgreSQL) of every run.
#
#   bench/without_load.sh 4 "- sessions backends" /dashboard /account      # 4 rounds; "-" is with everything
#
# Needs the bench database seeded (make bench's first step) and the environment of bench/README.md's
# "Profiling a page" (production settings, DATABASE_URL, DJANGO_SECRET_KEY, REDIS_URL).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
PORT=${BENCH_PORT:-8766}
DURATION=${BENCH_DURATION:-15s}
rounds=$1 variants=$2
shift 2
export GUNICORN_BIND=127.0.0.1:$PORT GUNICORN_ACCESSLOG=/dev/null
DB_NAME=$($PY -c 'import os, urllib.parse; print(urllib.parse.urlparse(os.environ["DATABASE_URL"]).path.lstrip("/"))')
GUNICORN_PID=""
trap '[ -n "$GUNICORN_PID" ] && kill -TERM "$GUNICORN_PID" 2>/dev/null; wait 2>/dev/null' EXIT
for round in $(seq 1 "$rounds"); do
  for variant in $variants; do
    BENCH_WITHOUT=${variant#-} $PY -m gunicorn -c config/gunicorn.conf.py bench.without:application 2>/dev/null &
    GUNICORN_PID=$!
    until curl -s -o /dev/null -H "X-Forwarded-Proto: https" "http://127.0.0.1:$PORT/healthz"; do
      kill -0 "$GUNICORN_PID" || exit 1
      sleep 0.2
    done
    cookie=$($PY bench/signin.py --port "$PORT" --email lid0001@load.koudwater.test --password ijskoud-load)
    for url in "$@"; do
      headers=(-H "X-Forwarded-Proto: https" -H "Cookie: $cookie")
      wrk -t2 -c16 -d3s --timeout 10s "${headers[@]}" "http://127.0.0.1:$PORT$url" >/dev/null
      $PY bench/cpu.py "$GUNICORN_PID" "$DB_NAME" >/tmp/without_load.cpu &
      sampler=$!
      sleep 0.3
      requests=$(wrk -t2 -c16 -d"$DURATION" --timeout 10s -s bench/wrk_report.lua "${headers[@]}" \
        "http://127.0.0.1:$PORT$url" | sed -n 's/^BENCH_JSON //p' | $PY -c 'import json, sys; print(json.load(sys.stdin)["requests"])')
      kill -TERM "$sampler" && wait "$sampler" || true
      read -r app db </tmp/without_load.cpu
      $PY -c "print(f'round $round without=$variant $url load $(cut -d' ' -f1 /proc/loadavg): {$requests} requests, \
{($app + $db) * 1000 / $requests:.2f} ms server CPU per request')"
    done
    kill -TERM "$GUNICORN_PID" && wait "$GUNICORN_PID" || true
    GUNICORN_PID=""
  done
done
