"""manage.py on a developer's machine: debug on unless DJANGO_DEBUG says otherwise (`make run` serves with it off,
so a wrong address shows the Dutch 404 page); embedded SQLite unless DATABASE_URL is set."""

import os

os.environ.setdefault("DJANGO_DEBUG", "true")

from .base import *  # noqa: E402,F403

# Static files straight from the app folders and the Vite build, with or without debug, without collectstatic.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
