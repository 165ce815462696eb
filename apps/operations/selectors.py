"""Reads about the installation's machinery: is a process alive, what is the app's version."""

import datetime
import tomllib
from functools import lru_cache

from django.conf import settings
from django.utils import timezone

from .formatting import moment
from .heartbeat import is_fresh, this_host
from .models import Heartbeat

KIND_NAMES = {Heartbeat.Kind.WORKER: "de taakworker", Heartbeat.Kind.SCHEDULER: "de planner"}


def process_alive(*, kind: str, any_host: bool = False, now: datetime.datetime | None = None) -> tuple[bool, str]:
    """Whether a process of `kind` on this machine (or any) has a fresh heartbeat, with a Dutch line."""
    now = now or timezone.now()
    beats = Heartbeat.objects.filter(kind=kind)
    if not any_host:
        beats = beats.filter(host=this_host())
    newest = beats.order_by("-seen_at").first()
    name = KIND_NAMES[Heartbeat.Kind(kind)]
    where = "" if any_host else " op deze machine"
    if newest is None:
        return False, f"Er draait geen {name.removeprefix('de ')}{where}: nooit een hartslag gezien."
    if is_fresh(newest, now):
        return True, f"{name.capitalize()}{where} leeft (hartslag {moment(newest.seen_at, now=now)})."
    return False, f"{name.capitalize()}{where} draait niet sinds {moment(newest.seen_at, now=now)}."


@lru_cache(maxsize=1)
def app_version() -> str:
    """The version in pyproject.toml (the project's one version number; CHANGELOG.md says what each one brought)."""
    try:
        with open(settings.BASE_DIR / "pyproject.toml", "rb") as handle:
            return str(tomllib.load(handle)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        return "onbekend"
