#!/usr/bin/env bash
# `make run`'s steps, in one place: tests/newcomer/ serves the app through this very script, so the newcomer's
# path in CI cannot drift from what `make run` does. The database, the port and the site address come from
# the environment (DATABASE_URL unset: the embedded SQLite file db.sqlite3).
set -euo pipefail
cd "$(dirname "$0")/.."

PY="${PY:-.venv/bin/python}"
PORT="${PORT:-8000}"
# Links in mails and printed invitations follow the port; localhost, not 127.0.0.1: browsers refuse passkeys on an IP address.
export SITE_URL="${SITE_URL:-http://localhost:$PORT}"

"$PY" manage.py migrate --noinput
# Demo VAPID keys for Web Push, made once into .vapid.env (gitignored; config/settings/base.py reads it).
"$PY" manage.py vapid_keys --write .vapid.env
"$PY" manage.py seed_catalogue
"$PY" manage.py seed_demo
echo "Koud water challenge draait op http://localhost:$PORT (de e-mailworker en de planner draaien ernaast)"

# The task worker sends the mails (here to the console), the scheduler runs the scheduled jobs
# (apps/operations/jobs.py); both stop with the server.
"$PY" manage.py worker --no-reload &
worker=$!
"$PY" manage.py scheduler &
scheduler=$!
trap 'kill $worker $scheduler 2>/dev/null' EXIT
# Served like a real site (the Dutch 404 and 500 pages); DJANGO_DEBUG=true for Django's debug pages.
DJANGO_DEBUG="${DJANGO_DEBUG:-false}" MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN=true \
  "$PY" manage.py runserver "127.0.0.1:$PORT"
