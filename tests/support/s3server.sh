#!/usr/bin/env bash
# A real S3-compatible server on loopback for the django-storages tests:
# a throw-away one-node Ceph cluster (mon + memstore osd) with the RADOS Gateway in front.
#
# Usage:
#   tests/support/s3server.sh start    # install packages if missing, start, print the env vars
#   tests/support/s3server.sh status   # exit 0 when the S3 endpoint is up, 1 otherwise
#   tests/support/s3server.sh env      # print the env vars (as `export` lines; eval-able)
#   tests/support/s3server.sh stop     # stop radosgw, osd, mon; remove the scratch folder
#
# Fixed test credentials (test-only, loopback-only, nothing secret about them):
#   S3_ENDPOINT_URL=http://127.0.0.1:7480
#   S3_ACCESS_KEY_ID=koudtestkey
#   S3_SECRET_ACCESS_KEY=koudtestsecret
#   S3_BUCKET=koud-test-photos      (created by the tests' fixture, not by this script)
#   S3_REGION=us-east-1             (boto3: path-style addressing, signature_version="s3v4")
#
# Environment knobs:
#   S3_SCRATCH        scratch folder for config, data, logs, pid files   (default /tmp/koud-ceph)
#   S3_PORT           radosgw port on 127.0.0.1                          (default 7480)
#   S3_MON_PORT       monitor port on 127.0.0.1                          (default 6789)
#   S3_START_TIMEOUT  seconds to wait for each start-up stage            (default 120)
#
# Everything binds to 127.0.0.1 only; auth inside the cluster is off (cephx none), S3 auth is on.
# Daemons are started directly (no systemd) and stopped by their pid files.
# Debian 12 (bookworm) packages: radosgw ceph-mon ceph-osd (Ceph 16.2 "Pacific").

set -euo pipefail

S3_SCRATCH="${S3_SCRATCH:-/tmp/koud-ceph}"
S3_PORT="${S3_PORT:-7480}"
S3_MON_PORT="${S3_MON_PORT:-6789}"
S3_START_TIMEOUT="${S3_START_TIMEOUT:-120}"

ACCESS_KEY="koudtestkey"
SECRET_KEY="koudtestsecret"
BUCKET="koud-test-photos"
REGION="us-east-1"
ENDPOINT="http://127.0.0.1:${S3_PORT}"

CONF="${S3_SCRATCH}/ceph.conf"
MARKER="${S3_SCRATCH}/.koud-s3server"   # "this folder is ours" (stop removes only such a folder)
READY="${S3_SCRATCH}/ready"             # written once start has completed, user included
PIDDIR="${S3_SCRATCH}/run"
LOGDIR="${S3_SCRATCH}/log"

log() { printf 's3server: %s\n' "$*" >&2; }

die() {
    log "ERROR: $*"
    exit 1
}

# ---------------------------------------------------------------- helpers

tail_logs() {
    local f
    for f in "${LOGDIR}"/*.log; do
        [[ -f "$f" ]] || continue
        printf '\n----- last 30 lines of %s -----\n' "$f" >&2
        tail -n 30 "$f" >&2 || true
    done
}

fail_start() {
    log "ERROR: $*"
    tail_logs
    log "start failed; scratch folder kept for inspection: ${S3_SCRATCH} (run '$0 stop' to clean up)"
    exit 1
}

print_env() {
    printf 'export S3_ENDPOINT_URL=%s\n' "${ENDPOINT}"
    printf 'export S3_ACCESS_KEY_ID=%s\n' "${ACCESS_KEY}"
    printf 'export S3_SECRET_ACCESS_KEY=%s\n' "${SECRET_KEY}"
    printf 'export S3_BUCKET=%s\n' "${BUCKET}"
    printf 'export S3_REGION=%s\n' "${REGION}"
}

as_root() {
    if [[ "$(id -u)" -eq 0 ]]; then
        "$@"
    elif command -v sudo >/dev/null 2>&1; then
        sudo -n "$@"
    else
        die "need root (or passwordless sudo) to run: $*"
    fi
}

ensure_packages() {
    local missing=0 cmd
    for cmd in monmaptool ceph-mon ceph-osd radosgw radosgw-admin ceph; do
        command -v "$cmd" >/dev/null 2>&1 || missing=1
    done
    [[ "$missing" -eq 0 ]] && return 0
    log "installing radosgw ceph-mon ceph-osd (Debian packages) ..."
    export DEBIAN_FRONTEND=noninteractive
    # apt's chatter goes to stderr: stdout carries only the env lines.
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >&2 \
        || die "apt-get update failed"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold \
        radosgw ceph-mon ceph-osd >&2 \
        || die "apt-get install radosgw ceph-mon ceph-osd failed"
    for cmd in monmaptool ceph-mon ceph-osd radosgw radosgw-admin ceph; do
        command -v "$cmd" >/dev/null 2>&1 || die "'$cmd' still missing after installing the packages"
    done
}

pid_of() { # name -> prints pid if its pid file names a live process
    local f="${PIDDIR}/$1.pid" pid
    [[ -f "$f" ]] || return 1
    pid="$(tr -dc '0-9' <"$f")"
    [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
    printf '%s\n' "$pid"
}

# HTTP status code of a GET, "000" when nothing answers.
http_status() {
    local url="$1"
    if command -v curl >/dev/null 2>&1; then
        curl -s -o /dev/null -m 5 -w '%{http_code}' "$url" 2>/dev/null || printf '000'
    else
        # Fallback without curl: a raw HTTP/1.0 request over bash's /dev/tcp.
        local hostport="${url#http://}" path="/" host port line
        hostport="${hostport%%/*}"
        host="${hostport%%:*}"
        port="${hostport##*:}"
        line="$(timeout 5 bash -c "exec 3<>/dev/tcp/${host}/${port} && \
            printf 'GET ${path} HTTP/1.0\r\nHost: ${hostport}\r\n\r\n' >&3 && head -n1 <&3" 2>/dev/null || true)"
        line="${line#HTTP/* }"
        printf '%s' "${line:0:3}" | grep -E '^[0-9]{3}$' || printf '000'
    fi
}

s3_up() { [[ "$(http_status "${ENDPOINT}/")" == "200" ]]; }

port_busy() { # port -> 0 when something listens on 127.0.0.1:port
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

ceph_cli() { timeout 30 ceph -c "${CONF}" --connect-timeout 15 "$@"; }

wait_for() { # description seconds command... -> 0 once command succeeds, 1 on timeout
    local what="$1" secs="$2"
    shift 2
    local deadline=$((SECONDS + secs))
    until "$@" >/dev/null 2>&1; do
        if ((SECONDS >= deadline)); then
            log "timed out after ${secs}s waiting for ${what}"
            return 1
        fi
        sleep 0.5
    done
}

stop_daemon() { # name
    local name="$1" pid i
    pid="$(pid_of "$name")" || { rm -f "${PIDDIR}/${name}.pid"; return 0; }
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 60; i++)); do # up to 15 s
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.25
    done
    if kill -0 "$pid" 2>/dev/null; then
        log "${name} (pid ${pid}) ignored SIGTERM for 15 s; sending SIGKILL"
        kill -KILL "$pid" 2>/dev/null || true
        for ((i = 0; i < 20; i++)); do
            kill -0 "$pid" 2>/dev/null || break
            sleep 0.25
        done
    fi
    rm -f "${PIDDIR}/${name}.pid"
}

write_conf() {
    local fsid="$1"
    cat >"${CONF}" <<EOF
# Written by tests/support/s3server.sh -- throw-away test cluster, do not use for anything else.
[global]
fsid = ${fsid}
mon_initial_members = a
mon_host = v1:127.0.0.1:${S3_MON_PORT}
public_addr = 127.0.0.1
cluster_addr = 127.0.0.1
ms_bind_msgr2 = false
ms_bind_ipv6 = false
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
keyring = ${S3_SCRATCH}/keyring
run_dir = ${PIDDIR}
pid_file = ${PIDDIR}/\$name.pid
admin_socket = ${PIDDIR}/\$cluster-\$name.asok
log_file = ${LOGDIR}/\$name.log
log_to_stderr = false
err_to_stderr = false
log_to_syslog = false
crash_dir = ${S3_SCRATCH}/crash
osd_pool_default_size = 1
osd_pool_default_min_size = 1
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
osd_crush_chooseleaf_type = 0
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
mon_max_pg_per_osd = 1000
mon_warn_on_insecure_global_id_reclaim_allowed = false
# CI disks are often fuller than Ceph likes; the mon would refuse to run below 5 % free by default.
mon_data_avail_warn = 2
mon_data_avail_crit = 1

[mon]
mon_data = ${S3_SCRATCH}/mon/\$cluster-\$id
mon_cluster_log_file = ${LOGDIR}/cluster.log

[osd]
osd_data = ${S3_SCRATCH}/osd/\$cluster-\$id
osd_objectstore = memstore
memstore_device_bytes = 1073741824
# The osd must not send mon commands while it starts: its first command can race the monmap and be
# refused ("wrong fsid"), and then the osd exits. The script places osd.0 in the crush map itself.
osd_crush_update_on_start = false
osd_class_update_on_start = false

[client.rgw.a]
rgw_frontends = beast endpoint=127.0.0.1:${S3_PORT}
rgw_data = ${S3_SCRATCH}/rgw
rgw_dns_name = 127.0.0.1
rgw_enable_usage_log = false
rgw_zonegroup_root_pool = .rgw.root
EOF
}

# ---------------------------------------------------------------- commands

cmd_status() {
    local name state pid all=0
    for name in mon.a osd.0 client.rgw.a; do
        if pid="$(pid_of "$name")"; then state="running (pid ${pid})"; else state="not running"; all=1; fi
        printf '%-13s %s\n' "$name" "$state"
    done
    if s3_up; then
        printf '%-13s %s\n' "s3" "${ENDPOINT} answers"
    else
        printf '%-13s %s\n' "s3" "${ENDPOINT} does not answer"
        all=1
    fi
    return "$all"
}

cmd_stop() {
    # radosgw first, then the osd, then the mon (the osd and radosgw need the mon to shut down cleanly).
    if [[ -d "${PIDDIR}" ]]; then
        stop_daemon client.rgw.a
        stop_daemon osd.0
        stop_daemon mon.a
    fi
    if [[ -e "${S3_SCRATCH}" ]]; then
        case "${S3_SCRATCH}" in
            "" | "/" | "/tmp" | "/tmp/" | "${HOME:-/root}" | /usr* | /etc* | /var | /var/) die "refusing to remove S3_SCRATCH=${S3_SCRATCH}" ;;
        esac
        if [[ -f "${MARKER}" ]]; then
            rm -rf -- "${S3_SCRATCH}"
        else
            die "${S3_SCRATCH} exists but was not made by this script (no ${MARKER}); not removing it"
        fi
    fi
    log "stopped"
}

cmd_start() {
    local t0=$SECONDS
    # Already running: succeed quickly.
    if [[ -f "${READY}" ]] && pid_of client.rgw.a >/dev/null && pid_of osd.0 >/dev/null && pid_of mon.a >/dev/null \
        && s3_up; then
        log "already running at ${ENDPOINT}"
        print_env
        return 0
    fi
    # Half-started or stale leftovers: clean them up and start afresh.
    if [[ -e "${S3_SCRATCH}" ]]; then
        log "found leftovers in ${S3_SCRATCH}; cleaning up first"
        cmd_stop
    fi

    ensure_packages

    port_busy "${S3_PORT}" && die "127.0.0.1:${S3_PORT} is already in use by another program"
    port_busy "${S3_MON_PORT}" && die "127.0.0.1:${S3_MON_PORT} is already in use by another program"

    mkdir -p "${S3_SCRATCH}"
    : >"${MARKER}"
    mkdir -p "${PIDDIR}" "${LOGDIR}" "${S3_SCRATCH}/mon/ceph-a" "${S3_SCRATCH}/osd/ceph-0" \
        "${S3_SCRATCH}/rgw" "${S3_SCRATCH}/crash" "${S3_SCRATCH}/tmp"
    : >"${S3_SCRATCH}/keyring"

    local fsid osd_uuid osd_id
    fsid="$(cat /proc/sys/kernel/random/uuid)"
    osd_uuid="$(cat /proc/sys/kernel/random/uuid)"
    write_conf "${fsid}"

    # --- monitor
    log "creating and starting the monitor"
    monmaptool --create --fsid "${fsid}" --addv a "[v1:127.0.0.1:${S3_MON_PORT}]" \
        "${S3_SCRATCH}/tmp/monmap" >>"${LOGDIR}/setup.log" 2>&1 || fail_start "monmaptool failed"
    ceph-mon -c "${CONF}" --mkfs -i a --monmap "${S3_SCRATCH}/tmp/monmap" \
        </dev/null >>"${LOGDIR}/setup.log" 2>&1 || fail_start "ceph-mon --mkfs failed"
    ceph-mon -c "${CONF}" -i a </dev/null >>"${LOGDIR}/setup.log" 2>&1 || fail_start "ceph-mon did not start"
    wait_for "the monitor" "${S3_START_TIMEOUT}" ceph_cli mon stat || fail_start "the monitor did not come up"

    # --- osd (memstore: data in memory)
    log "creating and starting the osd"
    osd_id="$(ceph_cli osd new "${osd_uuid}" 2>>"${LOGDIR}/setup.log")" || fail_start "'ceph osd new' failed"
    [[ "${osd_id}" == "0" ]] || fail_start "expected osd id 0, got '${osd_id}'"
    ceph_cli osd crush add osd.0 1.0 root=default host=localhost >>"${LOGDIR}/setup.log" 2>&1 \
        || fail_start "'ceph osd crush add' failed"
    ceph-osd -c "${CONF}" -i 0 --mkfs --osd-uuid "${osd_uuid}" \
        </dev/null >>"${LOGDIR}/setup.log" 2>&1 || fail_start "ceph-osd --mkfs failed"
    osd_up() { ceph_cli osd dump 2>/dev/null | grep -qE '^osd\.0 up +in'; }
    osd_up_or_dead() { osd_up || ! pid_of osd.0 >/dev/null; }
    local attempt
    # ceph-osd returns once the daemon has initialised (non-zero when its init failed). Then wait until
    # the mon marks it up, or until it dies; a failed start is retried a bounded number of times.
    for attempt in 1 2 3; do
        if ceph-osd -c "${CONF}" -i 0 </dev/null >>"${LOGDIR}/setup.log" 2>&1; then
            wait_for "osd.0 to be up" "${S3_START_TIMEOUT}" osd_up_or_dead || fail_start "osd.0 did not come up"
            osd_up && break
        fi
        ((attempt < 3)) || fail_start "osd.0 failed to start 3 times"
        log "osd.0 failed to start (attempt ${attempt}); retrying; see ${LOGDIR}/osd.0.log"
        stop_daemon osd.0
        sleep 1
    done

    # --- radosgw (creates its pools on first start)
    log "starting radosgw on ${ENDPOINT}"
    radosgw -c "${CONF}" -n client.rgw.a </dev/null >>"${LOGDIR}/setup.log" 2>&1 \
        || fail_start "radosgw did not start"
    wait_for "the S3 endpoint ${ENDPOINT}" "${S3_START_TIMEOUT}" s3_up \
        || fail_start "radosgw does not answer on ${ENDPOINT}"

    # --- S3 user with fixed keys
    log "creating the S3 user"
    timeout 60 radosgw-admin -c "${CONF}" user create --uid=koudtest --display-name="Koud test" \
        --access-key="${ACCESS_KEY}" --secret-key="${SECRET_KEY}" \
        >>"${LOGDIR}/setup.log" 2>&1 || fail_start "radosgw-admin user create failed"

    : >"${READY}"
    log "S3 server up at ${ENDPOINT} after $((SECONDS - t0)) s (scratch: ${S3_SCRATCH})"
    print_env
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    env) print_env ;;
    *)
        printf 'usage: %s start|stop|status|env\n' "$0" >&2
        exit 2
        ;;
esac
