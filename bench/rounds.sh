#!/usr/bin/env bash
# Alternating rounds on a shared machine: each round loads /healthz, then each URL, with wrk (-t2 -c16) against
# gunicorn as bench/run.sh starts it, and prints requests per second and server CPU per request (bench/cpu.py),
# each against the round's /healthz. Needs the bench database `make bench` seeded.
#   bench/rounds.sh                                   # /admin (the load admin) and /dashboard (the bench member)
#   ROUNDS=6 DURATION=10s URLS="/admin:admin" bench/rounds.sh
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PY:-.venv/bin/python}
PORT=${BENCH_PORT:-8765}
ROUNDS=${ROUNDS:-4}
DURATION=${DURATION:-10s}
URLS=${URLS:-"/admin:admin /dashboard:member"}
export DATABASE_URL=${BENCH_DATABASE_URL:-postgres://root@127.0.0.1:5432/koud_bench}
export DJANGO_SETTINGS_MODULE=config.settings.production DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost LOG_LEVEL=WARNING
DJANGO_SECRET_KEY=$($PY -c 'import secrets; print(secrets.token_urlsafe(64))')
export DJANGO_SECRET_KEY MEDIA_ROOT=$PWD/bench/results/media
if [ -z "${BENCH_REDIS_URL+set}" ] && redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  BENCH_REDIS_URL=redis://127.0.0.1:6379/3
fi
if [ -n "${BENCH_REDIS_URL:-}" ]; then export REDIS_URL=$BENCH_REDIS_URL; fi
export GUNICORN_BIND=127.0.0.1:$PORT GUNICORN_ACCESSLOG=/dev/null
BASE=http://127.0.0.1:$PORT
PROTO="X-Forwarded-Proto: https"
DB_NAME=$($PY -c 'import os, urllib.parse; print(urllib.parse.urlparse(os.environ["DATABASE_URL"]).path.lstrip("/"))')

if curl -s -o /dev/null --max-time 2 "$BASE/healthz"; then
  echo "Er luistert al iets op 127.0.0.1:$PORT; kies een andere poort met BENCH_PORT=..." >&2
  exit 1
fi
$PY manage.py seed_load_data >/dev/null  # a no-op but for the load admin's factor, written under this run's key
$PY -m gunicorn -c config/gunicorn.conf.py config.wsgi:application >bench/results/rounds-gunicorn.log 2>&1 &
GUNICORN_PID=$!
trap 'kill -TERM $GUNICORN_PID 2>/dev/null || true; wait $GUNICORN_PID 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -s -o /dev/null -H "$PROTO" "$BASE/healthz" && break; sleep 0.2; done

declare -A COOKIE
COOKIE[member]=$($PY bench/signin.py --port "$PORT" --email lid0001@load.koudwater.test --password ijskoud-load)
COOKIE[admin]=$($PY bench/signin.py --port "$PORT" --email admin@load.koudwater.test --password ijskoud-load \
  --totp-secret "$($PY -c 'import django; django.setup(); from apps.demo.load_data import LOAD_ADMIN_TOTP_SECRET as s; print(s)')")

measure() {  # prints "<requests per second> <server CPU ms per request>"
  $PY bench/cpu.py "$GUNICORN_PID" "$DB_NAME" >bench/results/rounds-cpu.txt &
  local sampler=$! out
  sleep 0.3
  out=$(wrk -t2 -c16 -d"$DURATION" --timeout 10s -H "$PROTO" "$@")
  kill -TERM "$sampler"
  wait "$sampler"
  $PY - "$out" <<'EOF'
import re, sys
out = sys.argv[1]
requests = int(re.search(r"(\d+) requests in", out).group(1))
app_s, db_s = map(float, open("bench/results/rounds-cpu.txt").read().split())
print(float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1)), (app_s + db_s) * 1000 / max(requests, 1))
EOF
}

for url_who in $URLS; do  # each answers 200 (a bench of redirects would be a lie), and warms up
  url=${url_who%%:*} who=${url_who#*:}
  code=$(curl -s -o /dev/null -w '%{http_code}' -H "$PROTO" -H "Cookie: ${COOKIE[$who]}" "$BASE$url")
  [ "$code" = 200 ] || { echo "$url antwoordt $code in plaats van 200: geen meting" >&2; exit 1; }
  wrk -t2 -c16 -d3s -H "$PROTO" -H "Cookie: ${COOKIE[$who]}" "$BASE$url" >/dev/null
done
for round in $(seq 1 "$ROUNDS"); do
  read -r healthz healthz_cpu <<<"$(measure "$BASE/healthz")"
  line="round $round (load $(cut -d' ' -f1 /proc/loadavg)): /healthz $healthz req/s, $(printf %.2f "$healthz_cpu") ms CPU"
  for url_who in $URLS; do
    url=${url_who%%:*} who=${url_who#*:}
    read -r rate cpu <<<"$(measure -H "Cookie: ${COOKIE[$who]}" "$BASE$url")"
    line+=$(python3 -c "print(f'; $url {$rate:.0f} req/s = {$rate / $healthz:.0%}, {$cpu:.2f} ms CPU = {$healthz_cpu / $cpu:.0%}')")
  done
  echo "$line"
done
