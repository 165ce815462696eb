"""Several processes share the photo pass (each every n-th waiting photo); together they do each photo once.
On committed data (transactional_db): the worker processes have their own connections."""

import pytest

from apps.challenges.models import Dip
from apps.moving_in.models import ImportedObject

from .test_photos import assert_clean_upright


@pytest.mark.django_db(transaction=True)
def test_two_photo_workers_share_the_pass(small_club, photo_dir, run_import):
    run_import(database_url=small_club.url)
    out = run_import(only_photos=True, photos=str(photo_dir), photo_workers=2)
    assert "Foto's: 4 gevonden, 2 geïmporteerd" in out
    assert sorted(ImportedObject.objects.exclude(photo_status="").values_list("photo_status", flat=True)) == [
        "broken",
        "done",
        "done",
        "missing",
    ]
    for dip in Dip.objects.exclude(photo=""):
        assert_clean_upright(dip)
