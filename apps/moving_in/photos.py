"""The photo pass: each imported dip's photo from the old bucket, through this app's own photo pipeline.

Runs after the data pass committed, one photo at a time, each in its own transaction: stopped halfway (or
killed), the next run goes on where it was, since every dip's state is kept (waiting, done, missing, broken).
Files are streamed from a folder or the bucket's S3 endpoint and never all held: one at a time, and a big one
spills to disk. The pipeline (apps.challenges.photos) re-encodes upright, without EXIF or GPS, with the pixel
limits and a thumbnail; the files are private like every photo.
"""

import multiprocessing
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from django.conf import settings
from django.core.files import File
from django.db import connection, connections
from django.db.models import F

from apps.accounts.models import User
from apps.challenges.conditions import DipConditions
from apps.challenges.models import Dip
from apps.challenges.photos import PhotoError, photo_decode_slot, photo_process
from apps.challenges.services.dip_changes import dip_details_update
from apps.challenges.services.errors import DipNotFoundError
from apps.core.sql_registry import register

from .errors import ImportRefused
from .models import ImportedObject
from .refusals import MovingInRefusal
from .report import Report, person

Status = ImportedObject.PhotoStatus
CHUNK = 200
# pg_advisory_lock key of the photo pass (the data pass has its own: services.ADVISORY_LOCK_KEY).
PHOTO_LOCK_KEY = 0x6B6F7564_1D0B
_PHOTOS_WITHOUT = "the import, and so its photos' pass, writes into PostgreSQL only"
_PHOTOS_LOCK = register(
    "moving_in.photos_lock",
    postgresql="SELECT pg_try_advisory_lock(%s)",
    without=_PHOTOS_WITHOUT,
    example=[PHOTO_LOCK_KEY],
    alone=True,
)
_PHOTOS_UNLOCK = register(
    "moving_in.photos_unlock",
    postgresql="SELECT pg_advisory_unlock(%s)",
    without=_PHOTOS_WITHOUT,
    example=[PHOTO_LOCK_KEY],
    alone=True,
)
MESSAGE_PHOTOS_RUNNING = "Er loopt al een fotoronde. Wacht tot die klaar is en probeer het dan opnieuw."
SPOOL_BYTES = 8 * 1024 * 1024


class FolderPhotos:
    """The bucket as a folder (`<user id>/<timestamp>.<ext>`): what `supabase storage cp` or an S3 sync makes."""

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root).resolve()

    def _path(self, key: str) -> Path | None:
        path = (self.root / key).resolve()
        return path if path.is_relative_to(self.root) and path.is_file() else None

    def keys(self) -> set[str]:
        return {p.relative_to(self.root).as_posix() for p in self.root.rglob("*") if p.is_file()}

    def open(self, key: str):
        path = self._path(key)
        return None if path is None else path.open("rb")


class S3Photos:
    """The bucket through its S3 endpoint (Supabase: https://<ref>.supabase.co/storage/v1/s3, SigV4); the keys
    come from the usual AWS variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_DEFAULT_REGION)."""

    def __init__(self, endpoint: str, bucket: str, **credentials):
        import boto3  # type: ignore[import-untyped]
        from botocore.config import Config  # type: ignore[import-untyped]

        self.endpoint, self.bucket, self.credentials = endpoint, bucket, credentials
        self.client = boto3.client(
            "s3",
            endpoint_url=endpoint,
            config=Config(signature_version="s3v4", s3={"addressing_style": "path"}, retries={"max_attempts": 3}),
            **credentials,
        )

    def __reduce__(self):
        # A worker process makes a client of its own (a boto3 client cannot be pickled).
        return (_s3_photos, (self.endpoint, self.bucket, self.credentials))

    def keys(self) -> set[str]:
        found: set[str] = set()
        for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.bucket):
            found.update(item["Key"] for item in page.get("Contents", []))
        return found

    def open(self, key: str):
        from botocore.exceptions import ClientError  # type: ignore[import-untyped]

        try:
            response = self.client.get_object(Bucket=self.bucket, Key=key)
        except ClientError as exc:
            if exc.response.get("Error", {}).get("Code") in {"NoSuchKey", "404", "NotFound"}:
                return None
            raise
        # Bounded: a file over the photo limit is refused by the pipeline anyway, so more is not read.
        spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_BYTES)
        body, limit = response["Body"], settings.PHOTO_MAX_BYTES + 1
        while limit > 0 and (chunk := body.read(min(1024 * 1024, limit))):
            spool.write(chunk)
            limit -= len(chunk)
        body.close()
        spool.seek(0)
        return spool


def _s3_photos(endpoint: str, bucket: str, credentials: dict) -> S3Photos:
    return S3Photos(endpoint, bucket, **credentials)


def photos_check(*, source, report: Report) -> None:
    """The dry run's look at the bucket for the photos its data pass found: present ones would be imported, missing
    ones are named (decoding is the photo pass's work, so a broken file shows only in the real run)."""
    present = source.keys()
    for key in report.photo_keys:
        if key in present:
            report.imported("photos")
        else:
            report.skipped("photos", Status.MISSING.label.lower())
            report.anomaly("photo_missing", key, key, member=key.split("/", 1)[0])


def _waiting(limit: int | None, *, share: tuple[int, int] = (0, 1)) -> Iterator[ImportedObject]:
    """The waiting photos in id order; with `share` (k, n) only every n-th one, from the k-th (one worker's)."""
    last, given = 0, 0
    part, parts = share
    waiting = ImportedObject.objects.filter(kind=ImportedObject.Kind.DIP, photo_status=Status.WAITING)
    if parts > 1:
        waiting = waiting.alias(part=F("pk") % parts).filter(part=part)
    while limit is None or given < limit:
        chunk = list(
            waiting.filter(pk__gt=last).order_by("pk").only("pk", "new_id", "user_id", "photo_key", "old_id")[:CHUNK]
        )
        if not chunk:
            return
        for row in chunk:
            yield row
            given += 1
            if limit is not None and given >= limit:
                return
        last = chunk[-1].pk


def photos_import(*, source, limit: int | None = None, workers: int = 1) -> Report:
    """Bring the waiting photos in; returns a report of this pass (done, missing, broken).

    Decoding is the slow part and uses one core per photo: `workers` processes share the waiting photos (each
    every n-th by id, so no two take the same one and no row lock is held while a photo is worked on). One photo
    pass at a time (a session lock)."""
    with connection.cursor() as cursor:
        cursor.execute(_PHOTOS_LOCK.sql(connection.vendor), [PHOTO_LOCK_KEY])
        if not cursor.fetchone()[0]:
            raise ImportRefused(MESSAGE_PHOTOS_RUNNING, code=MovingInRefusal.ALREADY_RUNNING)
    try:
        if workers <= 1:
            return _photos_share(source, limit, (0, 1))
        share = None if limit is None else -(-limit // workers)
        # Forked workers: they share the parent's settings, and each opens its own connection (closed here
        # first, so none is shared). The source goes by pickle (an S3 client is made anew in the worker).
        connections.close_all()
        with multiprocessing.get_context("fork").Pool(workers, initializer=_inherited_connections_dropped) as pool:
            reports = pool.starmap(_photos_share, [(source, share, (k, workers)) for k in range(workers)])
        report = Report()
        for part in reports:
            report.merge(part)
        return report
    finally:
        with connection.cursor() as cursor:
            cursor.execute(_PHOTOS_UNLOCK.sql(connection.vendor), [PHOTO_LOCK_KEY])


def _inherited_connections_dropped() -> None:
    """A worker starts without the parent's connection objects, so it opens sessions of its own. Inside a running
    event loop Django keeps the loop's connections apart from the thread's: close_all() above closed the loop's,
    but in the worker no loop runs, and it would find the thread's open one and share that socket with the parent
    and the other worker. Dropped, not closed: closing would end the parent's session (psycopg leaves a
    connection made before a fork alone when the worker lets go of it)."""
    for alias in connections:
        try:
            del connections[alias]
        except AttributeError:  # never opened in this thread
            pass


def _photos_share(source, limit: int | None, share: tuple[int, int]) -> Report:
    report = Report()
    for row in _waiting(limit, share=share):
        report.found("photos")
        status = _one(source, row, report)
        ImportedObject.objects.filter(pk=row.pk).update(photo_status=status)
        if status == Status.DONE:
            report.imported("photos")
        else:
            report.skipped("photos", Status(status).label.lower())
    if share[1] > 1:
        connections.close_all()  # a pool worker: its connection ends with it
    return report


def _member_named(user_id: int | None) -> str:
    if user_id is None:
        return ""
    found = User.objects.filter(pk=user_id).values_list("full_name", "email").first()
    return person(*found) if found else ""


def _one(source, row: ImportedObject, report: Report) -> str:
    fields = ("pk", "photo", "water_temperature", "duration_seconds", "spot", "note")
    dip = Dip.objects.filter(pk=row.new_id).only(*fields).first()
    if dip is None or dip.photo:  # gone since the import, or the member gave it a photo herself
        return Status.DONE
    handle = source.open(row.photo_key)
    if handle is None:
        report.anomaly("photo_missing", row.old_id, row.photo_key, who=_member_named(row.user_id))
        return Status.MISSING
    try:
        with handle, photo_decode_slot():
            upload = File(handle, name=os.path.basename(row.photo_key))
            processed = photo_process(upload)
    except PhotoError as exc:
        report.anomaly("photo_broken", row.old_id, f"{row.photo_key}: {exc.message}", who=_member_named(row.user_id))
        return Status.BROKEN
    conditions = DipConditions(
        water_temperature=dip.water_temperature, duration_seconds=dip.duration_seconds, spot=dip.spot, note=dip.note
    )
    try:
        dip_details_update(user=User(pk=row.user_id), dip_id=dip.pk, conditions=conditions, photo=processed)
    except DipNotFoundError:
        pass
    return Status.DONE
