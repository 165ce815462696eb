"""The export is prepared by the background worker (issue 22 §4): asked for with a POST, built into private
storage, announced by mail and on /account, downloaded by a short-lived link that only its owner can use."""

import datetime
import io
import time
import zipfile
from types import SimpleNamespace

import pytest
from django.conf import settings
from django.core import signing
from django.core.cache.backends import locmem
from django.core.files.base import ContentFile
from django.core.management import call_command
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from apps.challenges.models import photo_storage
from apps.logbook.models import MemberExport
from apps.logbook.services import export_build, export_request, export_storage, exports_delete_old
from apps.logbook.views import EXPORT_LINK_SALT
from tests.challenges.photo_samples import image_bytes
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import DipFactory, UserChallengeFactory
from tests.mailbox import run_worker, smtp_server, text_and_html  # noqa: F401 - smtp_server is a fixture

pytestmark = pytest.mark.django_db


def export_tasks() -> int:
    return DBTaskResult.objects.filter(task_path="apps.logbook.tasks.build_member_export").count()


def stored_exports() -> list[str]:
    try:
        return export_storage().listdir("")[1]
    except FileNotFoundError:
        return []


@pytest.fixture(autouse=True)
def empty_export_storage():
    storage = export_storage()
    for name in stored_exports():
        storage.delete(name)


@pytest.fixture
def member_with_photo(member):
    photo = photo_storage().save(f"{member.pk}/achtergrond.jpg", ContentFile(image_bytes()))
    DipFactory(user_challenge=UserChallengeFactory(user=member), number=1, photo=photo)
    return member


def test_asking_only_queues_the_job_and_says_so(member_client, member_with_photo, django_assert_max_num_queries):
    # A few writes, whatever the member keeps: the ZIP is not built here.
    with django_assert_max_num_queries(10):
        response = member_client.post("/account/export")
    assert response["Location"] == "/account#export"
    assert "Je export wordt klaargezet" in member_client.get("/account").content.decode()
    export = MemberExport.objects.get(user=member_with_photo)
    assert export.status == MemberExport.Status.PREPARING
    assert export_tasks() == 1
    assert stored_exports() == []  # nothing built in the request


def test_a_second_tap_while_it_is_prepared_queues_nothing(member_client, member):
    member_client.post("/account/export")
    member_client.post("/account/export")
    assert export_tasks() == 1 and MemberExport.objects.count() == 1


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_taps_at_the_same_moment_give_one_job(member):
    requires_postgresql()
    results = run_concurrently(lambda _i: export_request(user=member), times=8)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert export_tasks() == 1 and MemberExport.objects.count() == 1


def test_the_worker_builds_the_zip_and_mails_the_member(member_client, member_with_photo, smtp_server):  # noqa: F811
    member_client.post("/account/export")
    run_worker()  # builds the export, queues the mail
    run_worker()  # sends the mail
    export = MemberExport.objects.get(user=member_with_photo)
    assert export.status == MemberExport.Status.READY and stored_exports() == [export.file_name]
    with export_storage().open(export.file_name, "rb") as stored:
        archive = zipfile.ZipFile(io.BytesIO(stored.read()))
    assert "plonsen.json" in archive.namelist()
    assert len([name for name in archive.namelist() if name.startswith("fotos/")]) == 1
    message = smtp_server.only()
    assert message["To"] == member_with_photo.email and message["Subject"] == "Je gegevens staan klaar om te downloaden"
    assert message["List-Unsubscribe"] is None  # an answer to the member's own request
    text, _html = text_and_html(message)
    assert "https://koudwater.example/account#export" in text
    page = member_client.get("/account").content.decode()
    assert 'href="/account/export/download"' in page and "Download je export" in page


def _ready_export(client) -> MemberExport:
    client.post("/account/export")
    run_worker()
    return MemberExport.objects.get(status=MemberExport.Status.READY)


def test_only_the_owner_can_follow_the_link(client, member, other_member):
    client.force_login(member)
    _ready_export(client)
    link = client.get("/account/export/download")["Location"]
    assert client.get(link).status_code == 200
    client.force_login(other_member)
    assert client.get(link).status_code == 404
    # The other member's own download leads to their own (missing) export, never to this one.
    assert client.get("/account/export/download")["Location"] == "/account#export"
    client.logout()
    assert client.get(link)["Location"].startswith("/auth?next=")


def test_the_link_expires(member_client, member):
    export = _ready_export(member_client)

    class SignedLongAgo(signing.TimestampSigner):
        def timestamp(self):
            return signing.b62_encode(int(time.time()) - settings.EXPORT_LINK_SECONDS - 1)

    token = SignedLongAgo(salt=EXPORT_LINK_SALT).sign_object({"u": member.pk, "f": export.file_name})
    assert member_client.get(f"/account/export/bestand/{token}").status_code == 404
    forged = signing.dumps({"u": member.pk, "f": export.file_name}, salt="een-ander-zout")
    assert member_client.get(f"/account/export/bestand/{forged}").status_code == 404


def test_the_export_itself_expires(member_client, member):
    export = _ready_export(member_client)
    MemberExport.objects.filter(pk=export.pk).update(
        ready_at=timezone.now() - datetime.timedelta(hours=settings.EXPORT_KEEP_HOURS, seconds=1)
    )
    assert member_client.get("/account/export/download")["Location"] == "/account#export"


def test_the_cached_account_page_drops_the_link_when_the_export_expires(member_client, member, monkeypatch):
    export = _ready_export(member_client)
    expires = timezone.now() + datetime.timedelta(minutes=30)
    MemberExport.objects.filter(pk=export.pk).update(
        ready_at=expires - datetime.timedelta(hours=settings.EXPORT_KEEP_HOURS)
    )
    member_client.get("/account")  # the message of the request above goes
    assert "Download je export" in member_client.get("/account").content.decode()  # rendered and cached
    # No write says so: only the clock ends the link. Half an hour later, for the app and for the cache:
    later = expires + datetime.timedelta(minutes=1)
    monkeypatch.setattr(timezone, "now", lambda: later)
    monkeypatch.setattr(locmem, "time", SimpleNamespace(time=lambda: later.timestamp()))
    assert "Download je export" not in member_client.get("/account").content.decode()


def test_behind_nginx_the_proxy_sends_the_bytes(member_client, member, settings):
    export = _ready_export(member_client)
    settings.EXPORT_SERVE_VIA = "x-accel"
    response = member_client.get(member_client.get("/account/export/download")["Location"])
    assert response.status_code == 200 and response.content == b""
    assert response["X-Accel-Redirect"] == f"/protected-exports/{export.file_name}"
    assert response["Content-Disposition"].startswith('attachment; filename="mijn-gegevens-')
    # nginx's `location /protected-exports/ { internal; alias <MEDIA_ROOT>/exports/; }` finds the file there.
    assert (settings.MEDIA_ROOT / "exports" / export.file_name).is_file()


def test_a_new_request_replaces_the_old_export(member_client, member, django_capture_on_commit_callbacks):
    old = _ready_export(member_client)
    with django_capture_on_commit_callbacks(execute=True):
        member_client.post("/account/export")
    assert old.file_name not in stored_exports()
    renewed = MemberExport.objects.get(user=member)
    assert renewed.status == MemberExport.Status.PREPARING and renewed.job != old.job


def test_a_job_replaced_while_it_runs_throws_its_file_away(member, monkeypatch, django_capture_on_commit_callbacks):
    from apps.logbook import services

    first = export_request(user=member)
    MemberExport.objects.filter(pk=first.pk).update(status=MemberExport.Status.FAILED)
    second = export_request(user=member)
    assert export_build(export_id=first.pk, job=str(first.job)) == "skipped"  # an old job does nothing

    write = services.export_write

    def write_while_the_member_asks_again(user, target):
        write(user, target)
        MemberExport.objects.filter(pk=second.pk).update(status=MemberExport.Status.FAILED)
        export_request(user=member)

    monkeypatch.setattr(services, "export_write", write_while_the_member_asks_again)
    with django_capture_on_commit_callbacks(execute=True):
        assert export_build(export_id=second.pk, job=str(second.job)) == "replaced"
    assert stored_exports() == []
    monkeypatch.setattr(services, "export_write", write)
    third = MemberExport.objects.get(user=member)
    assert export_build(export_id=third.pk, job=str(third.job)) == "ready"
    # The same job again (a task put back after a worker died): the export is ready, nothing more is made.
    assert export_build(export_id=third.pk, job=str(third.job)) == "skipped"
    assert stored_exports() == [MemberExport.objects.get(pk=third.pk).file_name]


def test_old_exports_and_stray_files_are_removed(member_client, member, django_capture_on_commit_callbacks):
    export = _ready_export(member_client)
    stray = export_storage().save("999-verweesd.zip", ContentFile(b"PK"))
    later = timezone.now() + datetime.timedelta(hours=settings.EXPORT_KEEP_HOURS, minutes=1)
    assert exports_delete_old(now=timezone.now()) == 0  # young ones stay
    with django_capture_on_commit_callbacks(execute=True):
        exports_delete_old(now=later)
    assert not MemberExport.objects.filter(pk=export.pk).exists()
    assert export.file_name not in stored_exports() and stray not in stored_exports()


def test_the_cleanup_command_runs(member_client, member, capsys):
    _ready_export(member_client)
    call_command("delete_old_exports")
    assert "0 oude export(s) verwijderd." in capsys.readouterr().out
    assert MemberExport.objects.filter(user=member).exists()


def test_the_export_leaves_with_the_account(member_client, member, django_capture_on_commit_callbacks):
    from apps.accounts.removal import account_delete
    from tests.factories import DEFAULT_PASSWORD

    export = _ready_export(member_client)
    with django_capture_on_commit_callbacks(execute=True):
        account_delete(user=member, password=DEFAULT_PASSWORD)
    assert export.file_name not in stored_exports()
