"""Photo files that no dip points to: written by a worker that died before its dip committed (or before it
removed a replaced photo), or left in the folder of a deleted account. The cron command removes them.

Photos live under `<member id>/` in the photo storage (local folder or S3 bucket); other top-level folders
(`load/` of the benchmark data, badge art and anything else sharing the bucket) are never looked at. The
storage API only (listdir, get_modified_time, delete), so it works on both backends.
"""

import datetime
import math

from django.utils import timezone

from .models import Dip, photo_storage

# A file younger than this may belong to a dip whose request is still running (its row not committed yet).
ORPHAN_MIN_AGE = datetime.timedelta(hours=1)
# Member folders listed per run (each is one listing and one indexed query; a file's age is only asked for
# files no dip points to). A bigger club is covered in turns, one share per cron run.
FOLDERS_PER_RUN = 500
CRON_INTERVAL = datetime.timedelta(minutes=15)


def photo_orphans_delete(*, now: datetime.datetime | None = None, folders_per_run: int = FOLDERS_PER_RUN) -> int:
    """Remove photo files that no dip points to and that are older than ORPHAN_MIN_AGE. Returns how many.

    With more member folders than `folders_per_run`, each run takes every n-th folder, starting at an
    offset that moves with the quarter hour of `now`, so runs every 15 minutes visit them all in turn.
    """
    now = now or timezone.now()
    storage = photo_storage()
    try:
        folders, _files = storage.listdir("")
    except FileNotFoundError:  # a fresh local install: nothing uploaded yet
        return 0
    folders = sorted((name for name in folders if name.isdigit()), key=int)
    turns = max(1, math.ceil(len(folders) / max(1, folders_per_run)))
    turn = int(now.timestamp() // CRON_INTERVAL.total_seconds()) % turns
    removed = 0
    for folder in folders[turn::turns]:
        removed += _folder_orphans_delete(storage, folder, older_than=now - ORPHAN_MIN_AGE)
    return removed


def _folder_orphans_delete(storage, folder: str, *, older_than: datetime.datetime) -> int:
    _dirs, files = storage.listdir(folder)
    if not files:
        return 0
    referenced: set[str] = set()
    for photo, thumbnail in Dip.objects.filter(user_id=int(folder)).values_list("photo", "thumbnail"):
        referenced.update((photo, thumbnail))
    removed = 0
    for name in (f"{folder}/{file}" for file in files):
        if name in referenced or storage.get_modified_time(name) > older_than:
            continue
        storage.delete(name)
        removed += 1
    return removed


def photo_folder_delete(*, folder: str) -> int:
    """Remove every file in one member's folder (their account is gone). Returns how many."""
    storage = photo_storage()
    try:
        _dirs, files = storage.listdir(folder)
    except FileNotFoundError:
        return 0
    for file in files:
        storage.delete(f"{folder}/{file}")
    return len(files)
