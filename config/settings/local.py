"""`make run`: debug on, embedded SQLite unless DATABASE_URL is set."""

import os

os.environ.setdefault("DJANGO_DEBUG", "true")

from .base import *  # noqa: E402,F403
