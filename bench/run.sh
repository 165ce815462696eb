#!/usr/bin/env bash
# `make bench`: gunicorn with production settings on PostgreSQL, on 127.0.0.1 only, loaded by wrk.
# Writes bench/results/latest.md and the results table in docs/performance.md. See bench/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PY:-.venv/bin/python}
RESULTS=bench/results
PORT=${BENCH_PORT:-8765}
THREADS=${BENCH_THREADS:-2}           # wrk threads
CONNECTIONS=${BENCH_CONNECTIONS:-16}  # wrk connections: the issue's 16
DURATION=${BENCH_DURATION:-15s}       # measured run per URL
WARMUP=${BENCH_WARMUP:-3s}            # unmeasured run per URL first (worker caches, connections)
SEED_ARGS=${BENCH_SEED_ARGS:-}        # e.g. "--members 200 --dips-per-member 20" for a quick try
BIG_CLUB=${BENCH_BIG_CLUB:-20000}     # members of the second club the admin lists are measured on (0: skip)
ONLY=${BENCH_ONLY:-}                  # e.g. "/dashboard /challenge": load only these (and /healthz, the yardstick)

export DATABASE_URL=${BENCH_DATABASE_URL:-postgres://root@127.0.0.1:5432/koud_bench}
export DJANGO_SETTINGS_MODULE=config.settings.production
# A fresh secret per run: sessions are signed with it, and bench/signin.py makes them on this server.
DJANGO_SECRET_KEY=$($PY -c 'import secrets; print(secrets.token_urlsafe(64))')
export DJANGO_SECRET_KEY
export DJANGO_ALLOWED_HOSTS=127.0.0.1,localhost
export MEDIA_ROOT=$PWD/$RESULTS/media
export LOG_LEVEL=${LOG_LEVEL:-WARNING}
# Every tap of the phone bench and the load is a new stamp, as a member's first dip of a swim (one swim, one stamp
# would fold the bench's taps into its first dip and measure the lighter confirmation instead).
export DIP_SAME_SWIM_HOURS=0
# As in production with more than one container: rate-limit counters and cached pages in Redis (when one
# answers on this machine; BENCH_REDIS_URL= empty measures the database-only setup).
if [ -z "${BENCH_REDIS_URL+set}" ] && redis-cli -h 127.0.0.1 ping >/dev/null 2>&1; then
  BENCH_REDIS_URL=redis://127.0.0.1:6379/3
fi
if [ -n "${BENCH_REDIS_URL:-}" ]; then export REDIS_URL=$BENCH_REDIS_URL; fi
export GUNICORN_BIND=127.0.0.1:$PORT
export GUNICORN_ACCESSLOG=$PWD/$RESULTS/access.log
# Requests say they came through an HTTPS proxy (gunicorn trusts X-Forwarded-Proto from 127.0.0.1),
# so production's SSL redirect stays on and is not what we measure.
PROTO_HEADER="X-Forwarded-Proto: https"
BASE=http://127.0.0.1:$PORT

mkdir -p "$RESULTS/raw"
rm -f "$RESULTS"/raw/*.json "$RESULTS"/raw/*.txt "$RESULTS/access.log"

if ! command -v wrk >/dev/null; then
  echo "== wrk ontbreekt: installeren met apt-get"
  { apt-get install -y -qq wrk >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq wrk >/dev/null; }; }
fi

if curl -s -o /dev/null --max-time 2 "$BASE/healthz"; then
  echo "Er luistert al iets op 127.0.0.1:$PORT; kies een andere poort met BENCH_PORT=..." >&2
  exit 1
fi

ensure_database() {  # create the database of $DATABASE_URL when it is missing
$PY - <<'EOF'
# Create the bench database when it is missing (connecting to the server's "postgres" database).
import os
from urllib.parse import urlparse

import psycopg
from psycopg import sql

url = urlparse(os.environ["DATABASE_URL"])
name = url.path.lstrip("/")
with psycopg.connect(os.environ["DATABASE_URL"].replace(url.path, "/postgres", 1), autocommit=True) as conn:
    if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        print(f"   database {name} aangemaakt")
EOF
}
echo "== database: $DATABASE_URL"
ensure_database
$PY manage.py migrate --noinput -v 0
$PY manage.py seed_catalogue -v 0 >/dev/null
SEED_STARTED=$(date +%s%N)
# shellcheck disable=SC2086
$PY manage.py seed_load_data $SEED_ARGS | tee "$RESULTS/raw/seed.txt"
echo $((($(date +%s%N) - SEED_STARTED) / 1000000)) >"$RESULTS/raw/seed_ms.txt"
$PY manage.py collectstatic --noinput -v 0

echo "== photo pipeline: peak memory and time per file, each in a fresh process"
$PY bench/photo_pipeline.py --out "$RESULTS/raw/photos.json" | grep "^|"
echo "== a megabyte of hostile pasted text"
$PY bench/text_parsing.py >"$RESULTS/raw/text_parsing.json"

if [ "${BENCH_PUSH:-1}" != 0 ]; then  # BENCH_PUSH=0 skips it
  echo "== Web Push: één clubbericht aan 2.000 leden via een push-ontvanger op loopback (100 ms), één worker, halverwege gekild"
  BENCH_PUSH_DATABASE_URL=${DATABASE_URL}_push $PY bench/push.py --out "$RESULTS/raw/push.json" 2>/dev/null
fi

if [ "${BENCH_BACKUP:-1}" != 0 ]; then  # BENCH_BACKUP=0 skips it
  echo "== back-up en herstel van de belastingclub: tijd en piekgeheugen (database ${DATABASE_URL##*/}_restore)"
  $PY bench/backup.py --out "$RESULTS/raw/backup.json"
fi

if [ "${BENCH_IMPORT:-1}" != 0 ]; then  # BENCH_IMPORT=0 skips it
  echo "== overstappen: een club van 300 leden, 20.000 plonsen en 2.000 foto's uit de oude app (import_supabase)"
  $PY bench/import.py --out "$RESULTS/raw/import.json" | grep "^|"
fi

echo "== query counts (full club and a tiny club, in a rolled-back transaction)"
$PY bench/queries.py --out "$RESULTS/raw/queries.json"

echo "== admin lists (users, invitations, photos): rows, bytes, queries and time per page"
$PY bench/admin_lists.py --out "$RESULTS/raw/admin_lists.json"
if [ "$BIG_CLUB" != 0 ]; then
  # The same lists on a club of $BIG_CLUB members in a database of its own (seeded once, then kept):
  # a page must cost the same there.
  (
    export DATABASE_URL=${DATABASE_URL}_big MEDIA_ROOT=$PWD/$RESULTS/media_big
    echo "== admin lists at $BIG_CLUB members: $DATABASE_URL"
    ensure_database
    $PY manage.py migrate --noinput -v 0
    $PY manage.py seed_catalogue -v 0 >/dev/null
    $PY manage.py seed_load_data --members "$BIG_CLUB" | tail -1
    $PY bench/admin_lists.py --out "$RESULTS/raw/admin_lists_big.json"
  )
fi

echo "== CPU per request of the member pages and /admin, as a multiple of a bare signed-in page"
$PY bench/page_cost.py --out "$RESULTS/raw/page_cost.json"
echo "== /club, /admin en /veilig zoals gerenderd na de schrijfactie ervoor: het deel van de database (issue 37 §5)"
$PY bench/rendered_db_time.py --out "$RESULTS/raw/rendered_db_time.json"
echo "== CPU of each member page as rendered after the write that precedes it (issue 37)"
$PY bench/rendered_cost.py --out "$RESULTS/raw/rendered_cost.json"
echo "== what each of those writes moves in the page cache, for the load below (bench/rendered_load.py)"
VISITOR=$($PY bench/rendered_load.py record --out "$RESULTS/raw/rendered_moves.json")
export BENCH_RENDERED_MOVES=$PWD/$RESULTS/raw/rendered_moves.json

cut -d' ' -f1-3 /proc/loadavg >"$RESULTS/raw/loadavg.txt"  # other work on the machine skews every number
echo "== gunicorn op $GUNICORN_BIND (load average vooraf: $(cat "$RESULTS/raw/loadavg.txt"))"
GUNICORN_PID=""
CPU_PID=""
stop_gunicorn() {
  if [ -n "$CPU_PID" ]; then kill -TERM "$CPU_PID" 2>/dev/null || true; fi
  if [ -n "$GUNICORN_PID" ] && kill -0 "$GUNICORN_PID" 2>/dev/null; then
    kill -TERM "$GUNICORN_PID" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$GUNICORN_PID" 2>/dev/null || break; sleep 0.2; done
    kill -KILL "$GUNICORN_PID" 2>/dev/null || true
    wait "$GUNICORN_PID" 2>/dev/null || true
    echo "== gunicorn gestopt"
  fi
}
trap stop_gunicorn EXIT
trap 'exit 130' INT TERM
# bench/rendered_wsgi.py is config.wsgi's app; only a request with X-Bench-After first moves the page cache.
$PY -m gunicorn -c config/gunicorn.conf.py bench.rendered_wsgi:application >"$RESULTS/gunicorn.log" 2>&1 &
GUNICORN_PID=$!
for _ in $(seq 1 100); do
  curl -s -o /dev/null -H "$PROTO_HEADER" "$BASE/healthz" && break
  kill -0 "$GUNICORN_PID" 2>/dev/null || { cat "$RESULTS/gunicorn.log" >&2; exit 1; }
  sleep 0.2
done
DB_NAME=$($PY -c 'import os, urllib.parse; print(urllib.parse.urlparse(os.environ["DATABASE_URL"]).path.lstrip("/"))')
WORKERS=$($PY -c 'import runpy; c = runpy.run_path("config/gunicorn.conf.py"); print(c["workers"], c["threads"])')

echo "== inloggen via /auth"
MEMBER_COOKIE=$($PY bench/signin.py --port "$PORT" --email lid0001@load.koudwater.test --password ijskoud-load)
ADMIN_COOKIE=$($PY bench/signin.py --port "$PORT" --email admin@load.koudwater.test --password ijskoud-load \
  --totp-secret "$($PY -c 'import django; django.setup(); from apps.demo.load_data import LOAD_ADMIN_TOTP_SECRET as s; print(s)')")
VISITOR_COOKIE=$($PY bench/signin.py --port "$PORT" --email "$VISITOR" --password ijskoud-load)

# load URL COOKIE WHO SLUG [HEADER...]: check it answers 200, warm up, run wrk with the CPU sampler beside it,
# count its non-200 answers in the access log, and write $RESULTS/raw/SLUG.json.
load() {
  local url=$1 cookie=$2 who=$3 slug=$4
  shift 4
  local headers=(-H "$PROTO_HEADER" "$@")
  [ -n "$cookie" ] && headers+=(-H "Cookie: $cookie")
  # Before loading: the URL must answer 200 with this cookie (a bench of redirects to /auth would be a lie).
  check=$(curl -s -o "$RESULTS/raw/$slug.body" -w '%{http_code} %{size_download}' "${headers[@]}" "$BASE$url")
  if [ "${check%% *}" != "200" ]; then
    echo "$url antwoordt ${check%% *} in plaats van 200: geen meting" >&2
    exit 1
  fi
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" --timeout 10s "${headers[@]}" "$BASE$url" >/dev/null
  before=$(wc -l <"$RESULTS/access.log")
  $PY bench/cpu.py "$GUNICORN_PID" "$DB_NAME" >"$RESULTS/raw/$slug.cpu" &
  CPU_PID=$!
  sleep 0.3  # the sampler's first snapshot
  wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --timeout 10s --latency -s bench/wrk_report.lua \
    "${headers[@]}" "$BASE$url" >"$RESULTS/raw/$slug.txt"
  kill -TERM "$CPU_PID"
  wait "$CPU_PID"
  CPU_PID=""
  sleep 0.5  # let the last access-log lines land
  # Every non-200 answer during the measured run, 3xx included, from gunicorn's access log.
  non200=$(tail -n +"$((before + 1))" "$RESULTS/access.log" | awk -v u="GET $url HTTP" 'index($0, u) && $9 != 200' | wc -l)
  after=$(curl -s -o /dev/null -w '%{http_code}' "${headers[@]}" "$BASE$url")
  $PY - "$url" "$who" "${check#* }" "$non200" "$after" "$RESULTS/raw/$slug.txt" "$(cat "$RESULTS/raw/$slug.cpu")" <<'EOF'
import json, sys
url, who, size, non200, after, path, cpu = sys.argv[1:]
line = next(l for l in open(path) if l.startswith("BENCH_JSON "))
row = json.loads(line[len("BENCH_JSON "):])
row.update(url=url, who=who, checked_bytes=int(size), non200=int(non200), status_after=int(after))
app_s, db_s = map(float, cpu.split())
row.update(cpu_app_s=app_s, cpu_db_s=db_s)
json.dump(row, open(path[:-4] + ".json", "w"))
cpu_ms = (row["cpu_app_s"] + row["cpu_db_s"]) * 1000 / max(row["requests"], 1)
print(f"   {url:28} {row['requests'] / row['duration_us'] * 1e6:8.1f} req/s  p50 {row['p50_us'] / 1000:6.1f} ms"
      f"  p99 {row['p99_us'] / 1000:6.1f} ms  non-200 {row['non200']}  server CPU {cpu_ms:5.2f} ms/req")
EOF
}

while read -r url who; do
  if [ -n "$ONLY" ] && [ "$url" != /healthz ] && [[ " $ONLY " != *" $url "* ]]; then continue; fi
  case $who in
    member) cookie=$MEMBER_COOKIE ;;
    admin) cookie=$ADMIN_COOKIE ;;
    *) cookie="" ;;
  esac
  load "$url" "$cookie" "$who" "$(echo "$url" | tr '/' '_')"
done < <($PY bench/pages.py)

if [ "${BENCH_RENDERED:-1}" != 0 ]; then  # BENCH_RENDERED=0 skips it
  echo "== dezelfde belasting, elke aanvraag gerenderd na de schrijfactie ervoor (bench/rendered_load.py), als $VISITOR"
  while read -r url; do
    if [ -n "$ONLY" ] && [[ " $ONLY " != *" ${url%%\?*} "* ]]; then continue; fi
    load "$url" "$VISITOR_COOKIE" member "rendered_load$(echo "$url" | tr '/?=' '___')" -H "X-Bench-After: $url"
  done < <($PY bench/rendered_load.py urls --moves "$RESULTS/raw/rendered_moves.json")
fi

if [ -z "$ONLY" ] || [[ " $ONLY " == *" /dashboard "* ]] || [[ " $ONLY " == *" /challenge "* ]]; then
  echo "== telefoon: Chromium op traag 4G (562,5 ms, 1,6 Mbit/s down, 750 kbit/s up) met 4x tragere CPU, service worker ook"
  $PY bench/phone.py --port "$PORT" --cookie "$MEMBER_COOKIE" --runs 3 --taps 3 --out "$RESULTS/raw/phone.json"
fi

stop_gunicorn
echo "== trage telefoons: vijf foto's van 5 MB op 0,75 Mbit/s tegelijk, via nginx (deploy/nginx/koud.conf)"
$PY bench/slow_upload.py --out "$RESULTS/raw/slow_upload.json"
$PY bench/report.py --results "$RESULTS" --workers "$WORKERS" --connections "$CONNECTIONS" --threads "$THREADS" \
  --duration "$DURATION" ${BENCH_NO_DOC:+--no-doc}
