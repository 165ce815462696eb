"""Settings shared by every environment. Values that differ per machine come from the environment."""

from pathlib import Path
from typing import Any

import dj_database_url

from .caches import cache_settings
from .env import env_bool, env_int, env_list, env_str
from .security import content_security_policy
from .storage import badge_art_storage_settings, export_storage_settings, photo_storage_settings

# --- Core ---------------------------------------------------------------------------------------------------

BASE_DIR = Path(__file__).resolve().parent.parent.parent

SECRET_KEY = env_str("DJANGO_SECRET_KEY", "django-insecure-local-development-only")
DEBUG = env_bool("DJANGO_DEBUG", False)
ALLOWED_HOSTS = env_list("DJANGO_ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("DJANGO_CSRF_TRUSTED_ORIGINS")

# --- Apps, middleware, templates ----------------------------------------------------------------------------

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "allauth",
    "allauth.account",
    "allauth.mfa",
    "django_vite",
    "apps.audit",
    "apps.charts",
    "apps.accounts",
    "apps.invitations",
    "apps.challenges",
    "apps.shipping",
    "apps.club",
    "apps.events",
    "apps.adminpanel",
    "django_tasks",
    "django_tasks_db",
    "apps.notifications",  # after django_tasks_db: its admin.py takes the task table out of the admin site
    "apps.reminders",
    "apps.attendance",
    "apps.together",
    "apps.logbook",
    "apps.moving_in",
    "apps.operations",
    # Last: demo and load data build on every app above, and no app builds on them.
    "apps.demo",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "config.first_visit_styles.FirstVisitStylesMiddleware",  # after CSP: adds its stylesheets' hashes to it
    "config.middleware.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "config.middleware.MemberPageMarkMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Inside the messages' middleware: the answers of a redirect to #anchor get its tag (apps/core/anchored_messages).
    "apps.core.anchored_messages.AnchoredMessagesMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
    "apps.accounts.second_factor.AdminSecondFactorMiddleware",
    "config.middleware.IntegrityErrorMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES: list[dict[str, Any]] = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
            # apps.core has no models and is no installed app: its tags are named here.
            "libraries": {
                "page_sections": "apps.core.templatetags.page_sections",
                "anchored_messages": "apps.core.templatetags.anchored_messages",
            },
        },
    },
]

# --- Database -----------------------------------------------------------------------------------------------

# Without DATABASE_URL the app runs on an embedded SQLite file, so `make run` needs nothing installed.
DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL") or f"sqlite:///{BASE_DIR / 'db.sqlite3'}",
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 60),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql" and env_bool("DATABASE_PREPARED_STATEMENTS", True):
    # A page asks the same queries on every render. Prepared on a kept connection, PostgreSQL plans each once
    # instead of every time: planning /club's feed queries took 0.7-1.1 ms each, running them 0.02-0.5 ms.
    # A query is prepared the second time a connection sees it (a one-off stays unprepared). Switch it off
    # behind a connection pooler in transaction mode, which cannot keep a connection's prepared statements.
    DATABASES["default"]["OPTIONS"] = {
        **DATABASES["default"].get("OPTIONS", {}),
        "server_side_binding": True,
        "prepare_threshold": 1,
    }
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # `make run` writes the file from three processes (runserver, worker, scheduler). A transaction that reads
    # first and writes later (a request, a claimed mail) would meet another writer and fail at once with
    # "database is locked" (SQLite ends the would-be deadlock); begun IMMEDIATE, it waits for the write lock
    # instead, up to the timeout. WAL lets the pages read while one process writes.
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth: accounts, passwords, django-allauth --------------------------------------------------------------

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "apps.accounts.backends.ModelBackend",
    "apps.accounts.backends.AllauthBackend",
]
# The password rule's one home: apps/accounts/passwords.py reads the minimum from here.
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 6}},
]
# Django's defaults, then the original app's bcrypt hashes (checked only, replaced at the first sign-in).
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
    "django.contrib.auth.hashers.ScryptPasswordHasher",
    "apps.moving_in.hashers.SupabaseBCryptPasswordHasher",  # last: it never makes a hash
]
LOGIN_URL = "/auth"
LOGIN_REDIRECT_URL = "/dashboard"
LOGOUT_REDIRECT_URL = "/"

# django-allauth does the work behind our own /auth page.
ACCOUNT_LOGIN_METHODS = {"email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "password1*"]
ACCOUNT_USER_MODEL_USERNAME_FIELD = None
ACCOUNT_EMAIL_VERIFICATION = "none"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_PRESERVE_USERNAME_CASING = False
ACCOUNT_SESSION_REMEMBER = True
ACCOUNT_LOGOUT_ON_GET = False
ACCOUNT_ADAPTER = "apps.accounts.adapter.AccountAdapter"
ACCOUNT_RATE_LIMITS = {
    "login_failed": env_str("LOGIN_FAILED_RATE_LIMIT", "10/m/ip,5/5m/key"),
    "reset_password": "20/m/ip,5/m/key",
    # Every check of a signed-in member's current password (or passkey): asking again before a sensitive
    # action, changing the password, deleting the account. A borrowed session cannot guess on.
    "reauthenticate": env_str("REAUTHENTICATE_RATE_LIMIT", "5/5m/user,20/h/user"),
    "change_password": env_str("REAUTHENTICATE_RATE_LIMIT", "5/5m/user,20/h/user"),
    # A guest's sign-up (and cancellation) through an event's public link: no account, so per IP only.
    "event_guest": env_str("EVENT_GUEST_RATE_LIMIT", "10/m/ip,60/h/ip"),
    # A reply under an afspraak or an event (apps/together/reply_views.py): a chat, not a flood.
    "reply": env_str("REPLY_RATE_LIMIT", "10/m/user,60/h/user"),
}
# Recovery codes, adding or removing a factor and a new e-mail address ask for the password (or a passkey)
# again, unless the member gave it in the last five minutes (allauth's reauthentication).
ACCOUNT_REAUTHENTICATION_TIMEOUT = 300
# A new e-mail address replaces the old one only once the link sent to it is opened; the old address is told.
ACCOUNT_CHANGE_EMAIL = True
ACCOUNT_EMAIL_CONFIRMATION_AUTHENTICATED_REDIRECT_URL = "/account"
# Our Dutch labels on allauth's password reset forms.
ACCOUNT_FORMS = {
    "reset_password": "apps.accounts.forms.PasswordResetForm",
    "reset_password_from_key": "apps.accounts.forms.PasswordResetKeyForm",
    "reauthenticate": "apps.accounts.forms.ReauthenticateForm",
}
ACCOUNT_EMAIL_SUBJECT_PREFIX = "Koud water challenge: "
# Invitation-only: a reset request for an unknown address sends nothing (the page says the same either way).
ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS = False
# Passkeys (WebAuthn) to sign in, and a second factor (passkey or authenticator app with recovery codes),
# through allauth's MFA module; admins must have one (apps/accounts/second_factor.py).
MFA_SUPPORTED_TYPES = ["totp", "recovery_codes", "webauthn"]
MFA_PASSKEY_LOGIN_ENABLED = True
MFA_TOTP_ISSUER = "Koud water challenge"
# A code typed as the app rolls over to the next one still counts (RFC 6238 §5.2: one step of delay).
MFA_TOTP_TOLERANCE = 1
MFA_FORMS = {
    "add_webauthn": "apps.accounts.forms.PasskeyAddForm",
    # The browser's passkey answer is checked before fido2 reads it (apps/accounts/passkey_forms.py).
    "login_webauthn": "apps.accounts.passkey_forms.PasskeyLoginForm",
    "authenticate_webauthn": "apps.accounts.passkey_forms.PasskeySecondStepForm",
    "reauthenticate_webauthn": "apps.accounts.passkey_forms.PasskeyReauthenticateForm",
}
# No e-mail verification in an invitation-only club: every address may add a factor.
MFA_ALLOW_UNVERIFIED_EMAIL = True
# Authenticator-app secrets and recovery seeds are encrypted in the database (apps/accounts/mfa_secrets.py) with
# this key, kept apart from the backups like DJANGO_SECRET_KEY; without it, with a key derived from SECRET_KEY
# (`make run`; production warns in `check --deploy`). Older keys stay readable in the fallbacks.
MFA_ADAPTER = "apps.accounts.mfa_secrets.MFAAdapter"
MFA_ENCRYPTION_KEY = env_str("MFA_ENCRYPTION_KEY", "").strip()
MFA_ENCRYPTION_KEY_FALLBACKS = env_list("MFA_ENCRYPTION_KEY_FALLBACKS", [])
# WebAuthn needs https; only the local server and the browser tests (http://localhost) may do without.
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = env_bool("MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN", DEBUG)
# Rate limits count per client IP; behind a load balancer, say how many proxies set X-Forwarded-For.
ALLAUTH_TRUSTED_PROXY_COUNT = env_int("TRUSTED_PROXY_COUNT", 0)

# --- Language and time --------------------------------------------------------------------------------------

LANGUAGE_CODE = "nl"
LANGUAGES = [("nl", "Nederlands")]
# locale/nl: our informal Dutch over allauth's formal strings ("u", "beveiligingssleutel").
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = "Europe/Amsterdam"
USE_I18N = True
USE_TZ = True

# --- Storage: static files, the islands' build, photos ------------------------------------------------------

STATIC_URL = "/static/"
# A browser without the stylesheets gets them inline, allowed by hash: config/first_visit_styles.py.
INLINE_FIRST_VISIT_STYLES = True
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static", BASE_DIR / "frontend" / "dist"]
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(BASE_DIR / "media")))

# Photos are private: see config/settings/storage.py.
_photos_storage = photo_storage_settings(MEDIA_ROOT)

STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "photos": _photos_storage,
    "badge_art": badge_art_storage_settings(MEDIA_ROOT),
    "exports": export_storage_settings(MEDIA_ROOT),
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

DJANGO_VITE: dict[str, dict[str, Any]] = {
    "default": {
        # The Vite dev server only when asked for; otherwise the built manifest (as in production).
        "dev_mode": env_bool("VITE_DEV_SERVER", False),
        "dev_server_port": env_int("VITE_DEV_SERVER_PORT", 5173),
        "manifest_path": BASE_DIR / "frontend" / "dist" / "manifest.json",
        "static_url_prefix": "",
    }
}

# --- Cache and sessions -------------------------------------------------------------------------------------

# What a cache that is down or hung means for each use, and why sessions are not in it: caches.py.
CACHES = cache_settings(env_str("REDIS_URL"), timeout_ms=env_int("REDIS_TIMEOUT_MS", 500))
SESSION_ENGINE = "config.sessions"  # the database store, read with one plain query
SESSION_COOKIE_AGE = 60 * 60 * 24 * 30

# --- Security: cookies, headers, Content Security Policy ----------------------------------------------------

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_SAMESITE = "Lax"
CSRF_FAILURE_VIEW = "config.views.csrf_failure"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"
# django-csp sets the header on every answer, static files included (its middleware sits before WhiteNoise).
_vite = DJANGO_VITE["default"]
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": content_security_policy(
        vite_dev_origin=f"http://localhost:{_vite['dev_server_port']}" if _vite["dev_mode"] else None,
        photo_origin=_photos_storage.get("OPTIONS", {}).get("endpoint_url"),
    )
}

# --- Mail ---------------------------------------------------------------------------------------------------

EMAIL_BACKEND = env_str("EMAIL_BACKEND", "django.core.mail.backends.console.EmailBackend")
EMAIL_HOST = env_str("EMAIL_HOST", "localhost")
EMAIL_PORT = env_int("EMAIL_PORT", 587)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Koud water challenge <noreply@localhost>")
# A worker never waits on a dead mail server for ever: the mail is marked failed and retried later.
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 30)

# Mail and other slow work are background tasks (django-tasks) in the database: a request only adds a
# row, `manage.py db_worker` (one or more, in their own processes or containers) runs them.
TASKS = {"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}
# A task (or a mail) a worker claimed this long ago and never finished belongs to a worker that died: the
# cron command queues it again (apps/core/background.py). Longer than the longest honest task.
BACKGROUND_STUCK_AFTER_SECONDS = env_int("BACKGROUND_STUCK_AFTER_SECONDS", 30 * 60)

# --- Running the installation (apps/operations) -------------------------------------------------------------

# `manage.py scheduler` runs the scheduled jobs (apps/operations/jobs.py); the daily backup at this hour, local time.
BACKUP_HOUR = env_int("BACKUP_HOUR", 3)
# `manage.py backup` writes koud-backup-YYYYMMDD-HHMMSS.tar here and keeps the newest BACKUP_KEEP; `manage.py
# restore` reads them back; the Systeemstatus shows the newest and the free space. Copy this folder off the
# machine (docs/operations.md, "Backups and restore").
BACKUP_DIR = Path(env_str("BACKUP_DIR", str(BASE_DIR / "backups")))
BACKUP_KEEP = env_int("BACKUP_KEEP", 14)
# The token an uptime monitor sends to GET /status (Authorization: Bearer …); without one /status is a 404.
STATUS_TOKEN = env_str("STATUS_TOKEN")

# --- Web Push ----------------------------------------------------------------------------------------------

# VAPID (RFC 8292): the key pair the push services know this site by. `manage.py vapid_keys` makes a pair
# (base64url: the public key as the browser's applicationServerKey, the private key as 32 raw bytes). Without
# keys nobody can subscribe and every notice goes by mail. `make run` makes demo keys in .vapid.env (gitignored),
# which this file reads when the environment has none.
_vapid_file = BASE_DIR / ".vapid.env"
_vapid_demo = (
    dict(line.split("=", 1) for line in _vapid_file.read_text().split() if "=" in line) if _vapid_file.exists() else {}
)
VAPID_PUBLIC_KEY = env_str("VAPID_PUBLIC_KEY", _vapid_demo.get("VAPID_PUBLIC_KEY", ""))
VAPID_PRIVATE_KEY = env_str("VAPID_PRIVATE_KEY", _vapid_demo.get("VAPID_PRIVATE_KEY", ""))
# Who the push services may write to about this site's pushes (the JWT's "sub"): mailto: or https:.
VAPID_CONTACT = env_str("VAPID_CONTACT", "mailto:beheer@koudwater.example")
# The push services a browser's endpoint may point at (apps/notifications/push_transport.py): a name, or
# "*.name" for any name under it. FCM (Chrome, Edge on Android, Opera, ...), Mozilla's autopush (Firefox),
# Apple (Safari: *.push.apple.com) and Windows Notification Services (Edge on Windows). Always https on
# port 443, and at public addresses only. An operator adds one with the whole list in the environment.
WEBPUSH_ALLOWED_HOSTS = env_list(
    "WEBPUSH_ALLOWED_HOSTS",
    [
        "fcm.googleapis.com",
        "updates.push.services.mozilla.com",
        "*.push.services.mozilla.com",
        "*.push.apple.com",
        "*.notify.windows.com",
    ],
)
# The tests' push receiver speaks http on loopback, allowed only with this (production refuses it).
WEBPUSH_ALLOW_INSECURE_LOOPBACK = env_bool("WEBPUSH_ALLOW_INSECURE_LOOPBACK", False)
# Devices a member may have subscribed; a new one beyond this replaces the one seen longest ago.
WEBPUSH_MAX_DEVICES = env_int("WEBPUSH_MAX_DEVICES", 5)
# Pushes the worker sends at once (threads, each with its own kept-alive connections).
WEBPUSH_CONCURRENCY = env_int("WEBPUSH_CONCURRENCY", 8)
WEBPUSH_TIMEOUT_SECONDS = env_int("WEBPUSH_TIMEOUT_SECONDS", 10)
# How long a subscribing browser's request waits for the push service's name to resolve (then a Dutch "try
# again later"); the worker's own check at each push is not bounded by it.
WEBPUSH_LOOKUP_TIMEOUT_SECONDS = env_int("WEBPUSH_LOOKUP_TIMEOUT_SECONDS", 2)
# How long a push service keeps a push for a phone that is off (seconds).
WEBPUSH_TTL_SECONDS = env_int("WEBPUSH_TTL_SECONDS", 24 * 60 * 60)
# Quiet hours (local time, whole hours): only event changes go out between these; the rest waits until the end.
QUIET_HOURS_START = env_int("QUIET_HOURS_START", 22)
QUIET_HOURS_END = env_int("QUIET_HOURS_END", 7)

# --- Uploads and the app's own rules ------------------------------------------------------------------------

# Uploads: Django refuses bodies beyond this before any view runs; the photo rule is checked again.
DATA_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
FILE_UPLOAD_MAX_MEMORY_SIZE = 2 * 1024 * 1024
PHOTO_MAX_BYTES = env_int("PHOTO_MAX_BYTES", 15 * 1024 * 1024)
# Decoding costs memory per pixel, not per byte (a 143 KB PNG can hold 49 million black pixels). A baseline
# JPEG is decoded at reduced scale, so a 48 MP phone photo fits; PNG, HEIC and progressive JPEG are decoded
# at full size and get less (WebP half of that). Both keep one photo under 150 MB (bench/photo_pipeline.py).
PHOTO_MAX_PIXELS = env_int("PHOTO_MAX_PIXELS", 50_000_000)
PHOTO_MAX_PIXELS_FULL_DECODE = env_int("PHOTO_MAX_PIXELS_FULL_DECODE", 8_000_000)
# Decodes at once per worker process, and how long an upload may wait for a free slot before a Dutch 503.
PHOTO_MAX_CONCURRENT_DECODES = env_int("PHOTO_MAX_CONCURRENT_DECODES", 2)
PHOTO_DECODE_WAIT_SECONDS = env_int("PHOTO_DECODE_WAIT_SECONDS", 10)
# Photo uploads per member per window (refused ones count too); beyond it a Dutch 429.
PHOTO_UPLOADS_PER_WINDOW = env_int("PHOTO_UPLOADS_PER_WINDOW", 20)
PHOTO_UPLOAD_WINDOW_SECONDS = env_int("PHOTO_UPLOAD_WINDOW_SECONDS", 600)

# "Download mijn gegevens": the worker writes the ZIP into private storage ("exports" above); it stays this
# long. A download link lives EXPORT_LINK_SECONDS. Locally the file is served by the proxy (`x-accel`: an
# X-Accel-Redirect to nginx's internal EXPORT_ACCEL_LOCATION, aliased to MEDIA_ROOT/exports/) or, without
# a proxy (make run), by the app itself (`app`). On S3 the member is sent to a presigned URL.
EXPORT_KEEP_HOURS = env_int("EXPORT_KEEP_HOURS", 24)
# How long the audit log of admin and organiser actions keeps a row (apps.audit; prune_audit_log removes older ones).
AUDIT_KEEP_DAYS = env_int("AUDIT_KEEP_DAYS", 365)
# How long a freed place stays offered to the first on an event's waitlist (shorter when the event starts sooner).
WAITLIST_OFFER_HOURS = env_int("WAITLIST_OFFER_HOURS", 12)
# How long a guest's place (through an event's guest link) is held until they confirm their address with the link
# in their mail; after that it is free again (shorter when the event starts sooner).
GUEST_CONFIRM_MINUTES = env_int("GUEST_CONFIRM_MINUTES", 30)
# An offer never runs out at night (local time, whole hours): one whose deadline falls from START to END runs
# until END instead (apps/events/services/common.py offer_deadline). Equal hours: no night.
WAITLIST_OFFER_NIGHT_START = env_int("WAITLIST_OFFER_NIGHT_START", 22)
WAITLIST_OFFER_NIGHT_END = env_int("WAITLIST_OFFER_NIGHT_END", 8)
EXPORT_LINK_SECONDS = env_int("EXPORT_LINK_SECONDS", 300)
EXPORT_SERVE_VIA = env_str("EXPORT_SERVE_VIA", "app")
EXPORT_ACCEL_LOCATION = "/protected-exports/"
# The 24-hour rule of the marketing text: off by default, as in the original app.
DIP_DAILY_LIMIT_ENABLED = env_bool("DIP_DAILY_LIMIT_ENABLED", False)
# One swim, one stamp (apps/challenges/services/same_swim.py): a member's dips on one day within this many hours
# of each other are one swim; a second tap, a buddy's "Zet op mijn kaart" or an organiser's "Was erbij" confirms
# the dip already there instead of stamping another. 0 turns the rule off (each tap its own swim).
DIP_SAME_SWIM_HOURS = env_int("DIP_SAME_SWIM_HOURS", 3)
# The cold-water season starts on this day every year ("MM-DD"): the first stamp card visit after it shows
# the safety briefing once (apps.together.safety).
SAFETY_SEASON_START = env_str("SAFETY_SEASON_START", "10-01")
# "Aan de waterkant" (the shore list at club swims): after this many minutes in the water a swimmer's name stands
# out on the organiser's screen, quietly (no sound, no alarm); /veilig explains why shorter is often better.
SHORE_NOTICE_MINUTES = env_int("SHORE_NOTICE_MINUTES", 15)


# The site's own address, for invitation links built outside a request (management commands).
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")
# The club's name, drawn on the image a member shares of a badge (apps/club/badge_image.py).
CLUB_NAME = env_str("CLUB_NAME", "Koud water challenge")
# Who members write to about their data (the privacy statement at /privacy): an address of the club.
PRIVACY_CONTACT = env_str("PRIVACY_CONTACT", "privacy@koudwater.example")

# --- Logging ------------------------------------------------------------------------------------------------

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {
            "()": "config.logging.SafeFormatter",
            "format": "{asctime} {levelname} {name}: {message}",
            "style": "{",
        }
    },
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {
        # Our 404 view logs the path itself; Django's own line would say it twice.
        "django.request": {"level": "ERROR"},
    },
}
