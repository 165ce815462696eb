"""The yearly drill of README "Back-up en herstel", on PostgreSQL, as an operator would do it.

A club with members, dips with real photos, badge art and a member's export; `manage.py backup` as the
scheduler runs it (production settings, the env file's secret and VAPID keys); the site goes on for a while
(the lost timeline: an event, a dip, pages cached in Redis); everything is destroyed; `manage.py restore`
into a NEW database and media folder; gunicorn serves it with the same Redis. A member signs in and sees
her dips and photos (the thumbnails decode), nothing of the lost timeline comes out of Redis, and no archive
member holds the secret key or the VAPID private key.
"""

import datetime
import io
import json
import re
import secrets
import shutil
import subprocess
import tarfile

import psycopg
import pytest
import redis
from allauth.mfa.totp.internal.auth import TOTP
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.utils import timezone
from PIL import Image

from apps.challenges.badge_art import badge_art_save
from apps.challenges.models import Dip
from apps.challenges.photos import photo_process
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register
from apps.events.services.organising import EventDetails, event_create
from apps.logbook.models import MemberExport
from apps.logbook.services import export_build, export_request
from apps.notifications.management.commands.vapid_keys import vapid_key_lines
from config.settings.caches import cache_settings
from tests.cluster.members import PASSWORD
from tests.cluster.members import _production_hash as production_hash
from tests.concurrency import requires_postgresql
from tests.factories import TOTP_SECRET, ChallengeFactory, UserFactory
from tests.redis_states import TEST_REDIS_URL, require_redis
from tests.support import cluster as parts

from .drill import database_recreate, database_url, jpeg, manage, png, site_env, web

LOST_EVENT = "Verloren tocht na de back-up"
MFA_KEY = secrets.token_hex(32)
OTTO_VERIFIES = f"""
import time
from allauth.mfa.models import Authenticator
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, hotp_value
code = format_hotp_value(hotp_value('{TOTP_SECRET}', int(time.time()) // 30))
print(TOTP(Authenticator.objects.get(user__email='otto@example.nl', type='totp')).validate_code(code))
"""


@pytest.fixture
def local_media(settings, tmp_path):
    """This process writes the club's photos, badge art and exports into a media folder of its own."""
    media = tmp_path / "media"
    settings.MEDIA_ROOT = media
    storages = {**settings.STORAGES}
    for alias, folder in (("photos", "dip_photos"), ("badge_art", "badge_art"), ("exports", "exports")):
        options = {"location": media / folder, "base_url": "/badge-art/" if alias == "badge_art" else None}
        storages[alias] = {"BACKEND": "django.core.files.storage.FileSystemStorage", "OPTIONS": options}
    settings.STORAGES = storages
    return media


def _photo(seed: int):
    return photo_process(SimpleUploadedFile(f"plons{seed}.jpg", jpeg(seed), content_type="image/jpeg"))


def _club():
    """Marit with three dips, two with a photo; Otto with one and an export ready; badge art."""
    marit = UserFactory(email="marit@example.nl", full_name="Marit Zwemmer")
    marit.password = production_hash()  # the test settings hash with MD5, the site does not
    marit.save(update_fields=["password"])
    otto = UserFactory(email="otto@example.nl", full_name="Otto Ander")
    TOTP.activate(otto, TOTP_SECRET)  # his authenticator app (Marit signs in with a password alone)
    challenge = ChallengeFactory(target_dips=50)
    for member in (marit, otto):
        challenge_start(user=member, challenge_id=challenge.pk)
    moment = timezone.now() - datetime.timedelta(hours=1)
    photo_dips = []
    for seed, with_photo in ((1, True), (2, False), (3, True)):
        outcome = dip_register(user=marit, photo=_photo(seed) if with_photo else None, now=moment)
        if with_photo:
            photo_dips.append(outcome.dip.pk)
    dip_register(user=otto, photo=_photo(4), now=moment)
    export = export_request(user=otto)
    assert export_build(export_id=export.pk, job=str(export.job)) == "ready"
    art = badge_art_save(png((200, 40, 40, 255))).rsplit("/", 1)[-1]
    return marit, photo_dips, art


def _members(archive) -> list[str]:
    with tarfile.open(archive) as tar:
        return tar.getnames()


def _secret_free(archive, secret_values: list[str], scratch) -> None:
    """No member of the archive holds a secret or a session row; the database dump is read as the SQL it restores."""
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            data = tar.extractfile(member).read()
            if member.name == "database.dump":
                dump = scratch / "database.dump"
                dump.write_bytes(data)
                data = subprocess.run(["pg_restore", "--file=-", str(dump)], capture_output=True, check=True).stdout
                assert b"CREATE TABLE" in data  # really the SQL, not the compressed bytes
                assert b"COPY public.django_session" not in data  # a backup is not a sign-in
            for value in secret_values:
                assert value.encode() not in data, f"{member.name} holds a secret"


@pytest.mark.django_db(transaction=True)
def test_backup_destroy_restore_into_a_new_database(local_media, settings, tmp_path):
    requires_postgresql()
    require_redis()
    redis.Redis.from_url(TEST_REDIS_URL).flushdb()
    settings.MFA_ENCRYPTION_KEY = MFA_KEY  # this process writes Otto's authenticator app as the site would
    marit, photo_dips, art = _club()
    assert (local_media / "exports").is_dir() and any((local_media / "exports").iterdir())

    secret = secrets.token_urlsafe(50)
    vapid = dict(line.split("=", 1) for line in vapid_key_lines().split())
    backups = tmp_path / "backups"
    source = site_env(
        DJANGO_SECRET_KEY=secret,
        MFA_ENCRYPTION_KEY=MFA_KEY,
        **vapid,
        DATABASE_URL=database_url(connection.settings_dict),
        MEDIA_ROOT=str(local_media),
        BACKUP_DIR=str(backups),
        REDIS_URL=TEST_REDIS_URL,
    )
    manage("collectstatic", "--noinput", "-v", "0", env=source)
    port = parts.free_port()

    # The site before the backup: Marit's pages are cached in Redis.
    site = web("web-before", env=source, port=port, workdir=tmp_path).start()
    try:
        browser = parts.Browser(port=port)
        browser.sign_in("marit@example.nl", PASSWORD)
        assert browser.get("/challenge").status == 200

        done = manage("backup", env=source)
        assert "Back-up geschreven" in done.stdout
        (archive,) = backups.glob("koud-backup-*.tar")

        # The lost timeline: what happens after the backup, cached in Redis as the site serves it.
        settings.CACHES = cache_settings(TEST_REDIS_URL)
        event_create(details=EventDetails(title=LOST_EVENT, starts_at=timezone.now() + datetime.timedelta(days=3)))
        assert LOST_EVENT in browser.get("/samen").text
        lost = json.loads(browser.register_dip(photo=jpeg(9)).text)["dip"]
        assert lost["thumbnailUrl"] and f"/foto/{lost['id']}/klein" in browser.get("/challenge").text
    finally:
        site.stop()

    # Destroy: the data and the media folder are gone.
    call_command("flush", interactive=False, verbosity=0)
    shutil.rmtree(local_media)

    # Restore into a new database and a new media folder, with the Redis of the lost timeline.
    target_name = f"{connection.settings_dict['NAME']}_drill"
    database_recreate(connection.settings_dict, target_name)
    media = tmp_path / "media-restored"
    target = {
        **source,
        "DATABASE_URL": database_url(connection.settings_dict, name=target_name),
        "MEDIA_ROOT": str(media),
    }
    site = None
    try:
        done = manage("restore", str(archive), env=target)
        assert "Herstel klaar" in done.stdout, done.stdout
        site = web("web-after", env=target, port=port, workdir=tmp_path).start()
        browser = parts.Browser(port=port)
        browser.sign_in("marit@example.nl", PASSWORD)

        # Her dips and photos: the card shows the two photos of before the backup, and they decode.
        card = browser.get("/challenge")
        assert card.status == 200
        shown = {int(found) for found in re.findall(r"/foto/(\d+)/klein", card.text)}
        assert shown == set(photo_dips)
        for dip_id in photo_dips:
            for path in (f"/foto/{dip_id}/klein", f"/foto/{dip_id}"):
                answer = browser.get(path)
                assert answer.status == 200, path
                with Image.open(io.BytesIO(answer.body)) as image:
                    image.load()
                    assert image.format == "JPEG" and min(image.size) > 0
        assert browser.get(f"/badge-art/{art}").status == 200

        # Nothing of the lost timeline from Redis: not the event, and not her card of then (a new dip now
        # gets the lost dip's number and her lost page version again; the page must be the new one).
        assert LOST_EVENT not in browser.get("/samen").text
        again = json.loads(browser.register_dip().text)["dip"]
        assert again["id"] == lost["id"] and not again["thumbnailUrl"]
        assert f"/foto/{lost['id']}/klein" not in browser.get("/challenge").text

        # Otto's authenticator app still verifies: the key was kept apart, the archive held only the encrypted secret.
        assert manage("shell", "-c", OTTO_VERIFIES, env=target).stdout.strip().splitlines()[-1] == "True"

        # The restored database forgot the export: its file is not in the archive.
        with psycopg.connect(target["DATABASE_URL"]) as restored:
            table = MemberExport._meta.db_table
            assert restored.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)
            assert restored.execute(f"SELECT count(*) FROM {Dip._meta.db_table}").fetchone() == (5,)
    finally:
        if site is not None:
            site.stop()
        database_recreate(connection.settings_dict, target_name, create=False)

    # The archive: the media but not the exports, and no secret anywhere.
    names = _members(archive)
    assert names[:2] == ["manifest.json", "database.dump"]
    assert f"media/badge_art/{art}" in names
    assert sum(name.startswith("media/dip_photos/") for name in names) == 2 * 3  # photo and thumbnail each
    assert not [name for name in names if name.startswith("media/exports")]
    _secret_free(archive, [secret, MFA_KEY, TOTP_SECRET, vapid["VAPID_PRIVATE_KEY"]], tmp_path)
    with tarfile.open(archive) as tar:
        manifest = json.load(tar.extractfile("manifest.json"))
    assert manifest["counts"] == {"members": 2, "dips": 4, "photos": 3}
    assert manifest["migrations"]["challenges"] and manifest["version"]
