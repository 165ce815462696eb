"""The cleanup of photo files no dip points to, on a real S3 server: the same storage calls as locally."""

import datetime
import uuid

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import storages
from django.utils import timezone

from apps.challenges.photo_cleanup import ORPHAN_MIN_AGE, photo_orphans_delete
from tests.challenges.photo_samples import image_bytes
from tests.factories import DipFactory, UserChallengeFactory, UserFactory

pytestmark = [pytest.mark.s3, pytest.mark.django_db]


def test_objects_no_dip_points_to_go_and_the_rest_of_the_bucket_stays(settings, s3_storage_options, s3_cleanup):
    # A prefix of this test's own: the bucket is shared with other tests (and their objects are young).
    prefix = f"cleanup-{uuid.uuid4().hex}"
    settings.STORAGES = {
        **settings.STORAGES,
        "photos": {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": s3_storage_options | {"location": prefix}},
    }
    storage = storages["photos"]
    member = UserFactory()

    def put(name):
        name = storage.save(name, ContentFile(image_bytes()))
        s3_cleanup(f"{prefix}/{name}")
        return name

    photo, orphan, other = put(f"{member.pk}/dip.jpg"), put(f"{member.pk}/orphan.jpg"), put("load/photo.jpg")
    DipFactory(user_challenge=UserChallengeFactory(user=member), number=1, photo=photo)

    assert photo_orphans_delete() == 0  # everything is younger than an hour
    later = timezone.now() + ORPHAN_MIN_AGE + datetime.timedelta(minutes=5)
    assert photo_orphans_delete(now=later) == 1
    assert not storage.exists(orphan)
    assert storage.exists(photo) and storage.exists(other)
