"""The member's export: asked for in a request, built by the background worker, removed after a while."""

import datetime
import logging
import secrets
import tempfile
import uuid

from django.conf import settings
from django.core.files import File
from django.core.files.storage import storages
from django.db import transaction
from django.utils import timezone

from apps.core.page_cache import MEMBER, pages_changed
from apps.notifications.services import member_mail_queue

from .export import export_write
from .models import MemberExport
from .notices import EXPORT_READY
from .tasks import build_member_export

logger = logging.getLogger(__name__)


def export_storage():
    return storages["exports"]


def _stuck_after() -> datetime.timedelta:
    return datetime.timedelta(seconds=settings.BACKGROUND_STUCK_AFTER_SECONDS)


def _delete_file_after_commit(name: str) -> None:
    if name:
        transaction.on_commit(lambda: export_storage().delete(name))


def export_request(*, user) -> MemberExport:
    """Ask for a new export. One job per member at a time: while one is being prepared, asking again
    (a second tap, a second tab) queues nothing. A ready or failed one is replaced (its file goes)."""
    now = timezone.now()
    with transaction.atomic():
        # The row lock makes two requests at once decide one after the other; the unique user decides
        # which of two first requests creates the row.
        export, created = MemberExport.objects.select_for_update().get_or_create(
            user=user, defaults={"requested_at": now}
        )
        if not created:
            # A job older than the stuck limit belongs to a worker that died: a new request may start over.
            if export.status == MemberExport.Status.PREPARING and export.requested_at > now - _stuck_after():
                return export
            _delete_file_after_commit(export.file_name)
            export.status = MemberExport.Status.PREPARING
            export.job = uuid.uuid4()
            export.file_name = ""
            export.size = 0
            export.requested_at = now
            export.ready_at = None
            export.save()
        pages_changed(MEMBER, user_ids=[user.pk])  # the export's state on /account
        build_member_export.enqueue(export_id=export.pk, job=str(export.job))
    return export


def export_build(*, export_id: int, job: str) -> str:
    """In the worker: write the ZIP into private storage, then mark the export ready and mail the member.
    Runs without a lock while it writes (minutes for a thousand photos); a request that replaced the job
    in the meantime, an account deleted, or a second run of the same job (after a recovery) wins the
    race at the end, and this run's file is removed."""
    export = MemberExport.objects.select_related("user").filter(pk=export_id, job=job).first()
    if export is None or export.status != MemberExport.Status.PREPARING:
        return "skipped"
    storage = export_storage()
    name = f"{export.user_id}-{secrets.token_urlsafe(16)}.zip"
    try:
        with tempfile.TemporaryFile() as spool:
            export_write(export.user, spool)
            size = spool.tell()
            spool.seek(0)
            name = storage.save(name, File(spool, name=name))
    except Exception:
        logger.exception("export %s failed", export_id)
        with transaction.atomic():
            MemberExport.objects.filter(pk=export_id, job=job, status=MemberExport.Status.PREPARING).update(
                status=MemberExport.Status.FAILED
            )
            pages_changed(MEMBER, user_ids=[export.user_id])  # /account says it failed
        raise
    with transaction.atomic():
        current = MemberExport.objects.select_for_update().select_related("user").filter(pk=export_id).first()
        if current is None or str(current.job) != job or current.status != MemberExport.Status.PREPARING:
            _delete_file_after_commit(name)
            return "replaced"
        current.status = MemberExport.Status.READY
        current.file_name = name
        current.size = size
        current.ready_at = timezone.now()
        current.save(update_fields=["status", "file_name", "size", "ready_at"])
        pages_changed(MEMBER, user_ids=[current.user_id])  # the download link on /account
        member_mail_queue(kind=EXPORT_READY, user=current.user)
    return "ready"


def exports_delete_old(*, now: datetime.datetime | None = None) -> int:
    """Exports older than EXPORT_KEEP_HOURS go, rows and files; so does any file in the exports storage
    that old which no row points to (a job replaced while it ran, a worker that died after writing)."""
    now = now or timezone.now()
    cutoff = now - datetime.timedelta(hours=settings.EXPORT_KEEP_HOURS)
    with transaction.atomic():
        old = list(
            MemberExport.objects.select_for_update(skip_locked=True)
            .exclude(status=MemberExport.Status.PREPARING)
            .filter(requested_at__lte=cutoff)
        )
        for export in old:
            export.delete()  # its file goes after the commit (post_delete signal)
        pages_changed(MEMBER, user_ids=[export.user_id for export in old])  # /account offers a new one
    kept = set(MemberExport.objects.exclude(file_name="").values_list("file_name", flat=True))
    storage = export_storage()
    try:
        _folders, files = storage.listdir("")
    except FileNotFoundError:
        files = []
    orphans = 0
    for name in files:
        if name in kept:
            continue
        try:
            if storage.get_modified_time(name) <= cutoff:
                storage.delete(name)
                orphans += 1
        except FileNotFoundError:
            continue
    return len(old) + orphans
