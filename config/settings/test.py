"""pytest: fast hashing, in-memory e-mail and cache, photos in a scratch folder."""

import tempfile
from pathlib import Path

from .base import *  # noqa: F403
from .base import STORAGES

DEBUG = False
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.MD5PasswordHasher",
    "apps.moving_in.hashers.SupabaseBCryptPasswordHasher",  # last, as in base.py
]
EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
# One store for both aliases, as on a site (config/settings/caches.py): emptying `cache` empties the pages.
CACHES = {
    alias: {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "koud"}
    for alias in ("default", "pages")
}
MEDIA_ROOT = Path(tempfile.mkdtemp(prefix="koud-test-media-"))
if STORAGES["photos"]["BACKEND"].endswith("FileSystemStorage"):
    STORAGES["photos"]["OPTIONS"]["location"] = MEDIA_ROOT / "dip_photos"
if STORAGES["exports"]["BACKEND"].endswith("FileSystemStorage"):
    STORAGES["exports"]["OPTIONS"]["location"] = MEDIA_ROOT / "exports"
if STORAGES["badge_art"]["BACKEND"].endswith("FileSystemStorage"):
    STORAGES["badge_art"]["OPTIONS"]["location"] = MEDIA_ROOT / "badge_art"

# Pages as a browser that has the stylesheets gets them, so a test compares a page with itself; the first visit
# (stylesheets inline) is switched on where it is the subject: tests/config/test_first_visit_styles.py, the
# security walk (tests/security/test_headers.py) and every browser test (tests/e2e/conftest.py).
INLINE_FIRST_VISIT_STYLES = False

# Serve static files straight from the finders: no collectstatic before tests.
WHITENOISE_AUTOREFRESH = True
WHITENOISE_USE_FINDERS = True

# The browser tests' live server speaks http://localhost; WebAuthn there needs this.
MFA_WEBAUTHN_ALLOW_INSECURE_ORIGIN = True

# No Web Push keys (a .vapid.env that `make run` left must not change the tests): the push_receiver fixture
# (tests/pushbox.py) sets a fresh pair where a test pushes.
VAPID_PUBLIC_KEY = ""
VAPID_PRIVATE_KEY = ""
WEBPUSH_ALLOW_INSECURE_LOOPBACK = False

# No quiet hours by default: a notice sent in a test goes out now, whatever the clock says when the suite runs.
# The tests of quiet hours set them around the moment they use.
QUIET_HOURS_START = QUIET_HOURS_END = 0

# One swim, one stamp off by default (each tap its own swim), as the quiet hours: most tests stamp a card with
# several taps in a row. The tests of the rule (tests/challenges/test_same_swim*.py, tests/together,
# tests/attendance) switch it on with the production default, DIP_SAME_SWIM_HOURS = 3.
DIP_SAME_SWIM_HOURS = 0

# No night for waitlist offers by default either (an offer runs WAITLIST_OFFER_HOURS whatever the clock says when
# the suite runs); tests/events/test_offer_night.py sets the production hours, 22 to 8.
WAITLIST_OFFER_NIGHT_START = WAITLIST_OFFER_NIGHT_END = 0
