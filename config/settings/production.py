"""Production: refuses to start without a real secret key; HTTPS everywhere; WhiteNoise manifest."""

from django.core.exceptions import ImproperlyConfigured

from config.staticfiles import immutable_file_test

from .base import *  # noqa: F403
from .base import STORAGES
from .env import env_bool, env_int, env_secret, env_str

DEBUG = False

# The tests' push receiver on loopback: never in production, where it would let a member's endpoint reach
# this machine's own services.
if env_bool("WEBPUSH_ALLOW_INSECURE_LOOPBACK", False):
    raise ImproperlyConfigured("WEBPUSH_ALLOW_INSECURE_LOOPBACK is for the tests only; production refuses it.")
WEBPUSH_ALLOW_INSECURE_LOOPBACK = False
SECRET_KEY = env_secret("DJANGO_SECRET_KEY")
# Optional (a key derived from SECRET_KEY otherwise, and `check --deploy` says so), but never a weak one.
if env_str("MFA_ENCRYPTION_KEY", "").strip():
    MFA_ENCRYPTION_KEY = env_secret("MFA_ENCRYPTION_KEY")

# WhiteNoise's compressed manifest, but Vite's build keeps its own (hashed) names: config/staticfiles.py.
STORAGES["staticfiles"] = {"BACKEND": "config.staticfiles.StaticFilesStorage"}
WHITENOISE_IMMUTABLE_FILE_TEST = immutable_file_test

SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_SSL_REDIRECT = env_bool("DJANGO_SECURE_SSL_REDIRECT", True)
# The load balancer's health check speaks plain HTTP inside the network.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SESSION_COOKIE_SECURE = True
CSRF_COOKIE_SECURE = True
SECURE_HSTS_SECONDS = env_int("DJANGO_HSTS_SECONDS", 60 * 60 * 24 * 365)
SECURE_HSTS_INCLUDE_SUBDOMAINS = True
SECURE_HSTS_PRELOAD = True

# Production runs behind the buffering proxy (deploy/nginx/koud.conf): a local export ZIP is handed to it
# with X-Accel-Redirect, so no web worker pushes it byte by byte to a slow phone.
EXPORT_SERVE_VIA = env_str("EXPORT_SERVE_VIA", "x-accel")
