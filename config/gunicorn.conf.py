"""gunicorn settings; each can be overridden by environment variables of the same purpose."""

import multiprocessing
import os
import sys
from pathlib import Path

# The same reading of values as the settings (quotes a Docker env file kept are dropped), from any directory.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from config.settings.env import env_int, env_str  # noqa: E402

bind = env_str("GUNICORN_BIND", "0.0.0.0:8000")
# Each sync worker holds about 80 MB: 5 workers (the default on 2 cores) take ~410 MB. On a 1 GB VPS with
# PostgreSQL and Redis beside it, GUNICORN_WORKERS=3.
workers = env_int("GUNICORN_WORKERS", multiprocessing.cpu_count() * 2 + 1)
threads = env_int("GUNICORN_THREADS", 1)
timeout = env_int("GUNICORN_TIMEOUT", 30)
accesslog = env_str("GUNICORN_ACCESSLOG", "-")
# Heartbeat files in memory: a slow disk must not make gunicorn think its workers hang.
worker_tmp_dir = "/dev/shm" if os.path.isdir("/dev/shm") else None  # noqa: S108
forwarded_allow_ips = env_str("GUNICORN_FORWARDED_ALLOW_IPS", "127.0.0.1")
# No control socket: nothing here uses gunicornc, and its default place ($HOME/.gunicorn, /app in the image)
# is not writable for the app user, which logged "Permission denied: '/app/.gunicorn'" at every start.
control_socket_disable = True
