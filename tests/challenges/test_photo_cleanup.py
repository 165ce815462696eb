"""Photo files no dip points to (a worker died between writing them and committing its dip, or an account
went) are removed by the cron command once they are an hour old; the rest of the storage is left alone."""

import datetime
import os

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.core.management import call_command
from django.utils import timezone

from apps.accounts.removal import account_delete
from apps.challenges.photo_cleanup import ORPHAN_MIN_AGE, photo_orphans_delete
from tests.challenges.photo_samples import image_bytes
from tests.factories import DEFAULT_PASSWORD, DipFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def storage(settings, tmp_path):
    # A folder of this test's own: the session's photo folder holds other tests' files.
    settings.STORAGES = {
        **settings.STORAGES,
        "photos": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": tmp_path / "dip_photos", "base_url": None},
        },
    }
    return storages["photos"]


def _file(storage, name: str, *, age: datetime.timedelta) -> str:
    name = storage.save(name, ContentFile(image_bytes()))
    moment = (timezone.now() - age).timestamp()
    os.utime(storage.path(name), (moment, moment))
    return name


HOURS = datetime.timedelta(hours=2)


def test_the_cron_command_removes_old_files_no_dip_points_to_and_keeps_the_rest(storage, capsys):
    member = UserFactory()
    card = UserChallengeFactory(user=member)
    photo = _file(storage, f"{member.pk}/20261120T090000.jpg", age=HOURS * 50)
    thumbnail = _file(storage, f"{member.pk}/20261120T090000.thumb.jpg", age=HOURS * 50)
    DipFactory(user_challenge=card, number=1, photo=photo, thumbnail=thumbnail)
    orphans = [
        _file(storage, f"{member.pk}/20261123T100000.jpg", age=HOURS),  # the worker died before the commit
        _file(storage, f"{member.pk}/20261123T100000.thumb.jpg", age=HOURS),
        _file(storage, "99999999/20261101T100000.jpg", age=HOURS * 100),  # an account long gone
    ]
    uploading = _file(storage, f"{member.pk}/20261124T220000.jpg", age=ORPHAN_MIN_AGE / 2)  # its dip may follow
    others = [_file(storage, "load/photo-1.jpg", age=HOURS * 100), _file(storage, "loose.jpg", age=HOURS * 100)]

    call_command("send_scheduled_mail")

    assert "3 fotobestand(en) zonder plons verwijderd." in capsys.readouterr().out
    assert not any(storage.exists(name) for name in orphans)
    assert all(storage.exists(name) for name in [photo, thumbnail, uploading, *others])


def test_a_club_with_more_folders_than_one_run_takes_is_covered_in_turns(storage):
    folders = [str(user.pk) for user in UserFactory.create_batch(3)]
    orphans = [_file(storage, f"{folder}/20261123T100000.jpg", age=HOURS) for folder in folders]
    now = timezone.now()
    removed = [photo_orphans_delete(now=now + k * datetime.timedelta(minutes=15), folders_per_run=1) for k in range(3)]
    assert removed == [1, 1, 1]
    assert not any(storage.exists(name) for name in orphans)


def test_deleting_an_account_removes_its_photo_folder_also_files_no_dip_points_to(
    storage, django_capture_on_commit_callbacks
):
    member = UserFactory()
    card = UserChallengeFactory(user=member)
    photo = _file(storage, f"{member.pk}/20261120T090000.jpg", age=HOURS)
    DipFactory(user_challenge=card, number=1, photo=photo)
    orphan = _file(storage, f"{member.pk}/20261124T220000.jpg", age=datetime.timedelta(minutes=1))
    kept = _file(storage, f"{UserFactory().pk}/20261124T220000.jpg", age=HOURS)
    with django_capture_on_commit_callbacks(execute=True):
        account_delete(user=member, password=DEFAULT_PASSWORD)
    assert not storage.exists(photo) and not storage.exists(orphan)
    assert storage.exists(kept)
