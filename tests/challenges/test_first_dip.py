"""A newcomer's first minutes, through the views, on whichever database runs the suite (`make test` runs this
file on SQLite too): start the Waterdieren card, open it, dip with and without a photo, undo, every tab."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from apps.challenges.card_payloads import MESSAGE_ADDED
from apps.challenges.models import Challenge, Dip
from tests.challenges.photo_samples import image_bytes
from tests.factories import DipBuddyFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db

TABS = ["/dashboard", "/challenge", "/samen", "/club", "/account", "/statistieken"]


def dip(client, **fields):
    response = client.post("/challenge/plons", fields, HTTP_ACCEPT="application/json")
    assert response.status_code == 201, response.content
    return response.json()


def test_a_new_member_starts_the_waterdieren_card_dips_undoes_and_opens_every_tab(member_client, member):
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    response = member_client.post("/challenge/start", {"challenge_id": waterdieren.pk}, follow=True)
    assert response.status_code == 200 and response.redirect_chain[-1][0] == "/challenge"

    plain = dip(member_client)
    assert plain["message"] == MESSAGE_ADDED
    photo = SimpleUploadedFile("IMG_0001.jpg", image_bytes("JPEG", size=(60, 40)), content_type="image/jpeg")
    with_photo = dip(member_client, photo=photo)
    assert with_photo["message"] == MESSAGE_ADDED and with_photo["dip"]["photoUrl"]
    assert Dip.objects.filter(user=member).count() == 2

    for path in TABS:
        assert member_client.get(path).status_code == 200, path

    undone = member_client.post(f"/challenge/plons/{with_photo['dip']['id']}/ongedaan")
    assert undone.status_code == 200, undone.content
    assert Dip.objects.filter(user=member).count() == 1
    assert member_client.get("/challenge").status_code == 200


def test_a_card_with_buddies_both_ways_opens(member_client, member):
    """The stamp card reads its buddies as a UNION of two halves: the query SQLite refused while each half
    kept the model's ordering."""
    card = UserChallengeFactory(user=member)
    clubmate = UserFactory(full_name="Bram de Boei")  # a fixed name: a made-up one may need HTML escaping
    DipBuddyFactory(dip__user_challenge=card, buddy=clubmate)
    theirs = UserChallengeFactory(user=clubmate)
    DipBuddyFactory(dip__user_challenge=theirs, buddy=member, status="accepted", decided_at=timezone.now())
    html = member_client.get("/challenge").content.decode()
    assert clubmate.full_name in html
