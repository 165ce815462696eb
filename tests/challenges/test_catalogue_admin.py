"""Challenges and their milestone badges, made in the Django admin through the services, with uploaded art."""

import io

import pytest
from django.core.exceptions import ValidationError
from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import Image

from apps.challenges.badge_art import (
    MESSAGE_BADGE_FORMAT,
    MESSAGE_SVG_REFUSED,
    badge_art_process,
    badge_art_storage,
)
from apps.challenges.models import Badge, Challenge
from apps.challenges.photos import PhotoError
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.catalogue import (
    MESSAGE_CHALLENGE_HAS_MEMBERS,
    BadgeSpec,
    challenge_delete,
    challenge_rules_check,
    challenge_save,
)
from apps.challenges.services.errors import ChallengeError
from tests.challenges.photo_samples import exif_with_gps_and_rotation, image_bytes
from tests.factories import BadgeFactory, ChallengeFactory, UserBadgeFactory, UserChallengeFactory

pytestmark = pytest.mark.django_db

SVG = b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'


def png_with_alpha(size=(900, 600)) -> bytes:
    out = io.BytesIO()
    Image.new("RGBA", size, (200, 30, 30, 120)).save(out, format="PNG")
    return out.getvalue()


def upload(content: bytes, name: str = "badge.png", content_type: str = "image/png"):
    return SimpleUploadedFile(name, content, content_type=content_type)


# --- the rules ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "milestones", "message"),
    [
        (0, [], "Het doel moet minstens 1 plons zijn."),
        (10, [5, 12], "De badge bij 12 plonsen ligt voorbij het doel van 10 plonsen."),
        (10, [5, 5], "Er zijn twee badges bij 5 plonsen: één badge per mijlpaal."),
        (10, [0], "Een mijlpaal moet minstens 1 plons zijn."),
    ],
)
def test_the_rules_refuse_with_a_dutch_message(target, milestones, message):
    with pytest.raises(ValidationError) as caught:
        challenge_rules_check(target_dips=target, milestones=milestones)
    assert message in caught.value.messages


def test_the_rules_accept_badges_up_to_the_target():
    challenge_rules_check(target_dips=10, milestones=[1, 5, 10])


def test_challenge_save_creates_a_challenge_with_badges_and_art():
    challenge = Challenge(name="Winterdieren", category="special", target_dips=20)
    challenge_save(
        challenge=challenge,
        badges=[
            BadgeSpec(
                id=None, name="Zeehond", milestone_dips=10, image_png=badge_art_process(upload(png_with_alpha()))
            ),
            BadgeSpec(id=None, name="IJsbeer", milestone_dips=20),
        ],
    )
    badges = list(Badge.objects.filter(challenge=challenge).order_by("milestone_dips"))
    assert [(b.name, b.milestone_dips) for b in badges] == [("Zeehond", 10), ("IJsbeer", 20)]
    assert badges[0].image_url.startswith("/badge-art/") and badges[0].image_url.endswith(".png")
    assert badge_art_storage().exists(badges[0].image_url.removeprefix("/badge-art/"))


def test_challenge_save_refuses_a_badge_beyond_a_lowered_target_and_writes_nothing():
    challenge = ChallengeFactory(target_dips=10)
    BadgeFactory(challenge=challenge, milestone_dips=10)
    challenge.target_dips = 5
    png = badge_art_process(upload(png_with_alpha()))
    before = set(badge_art_storage().listdir("")[1]) if badge_art_storage().exists("") else set()
    with pytest.raises(ValidationError):
        challenge_save(challenge=challenge, badges=[BadgeSpec(id=None, name="Nieuw", milestone_dips=3, image_png=png)])
    assert Challenge.objects.get(pk=challenge.pk).target_dips == 10
    assert Badge.objects.filter(challenge=challenge).count() == 1
    after = set(badge_art_storage().listdir("")[1]) if badge_art_storage().exists("") else set()
    assert after == before  # the art written before the refusal is gone again


def test_challenge_save_refuses_two_badges_at_one_milestone_with_the_existing_ones():
    challenge = ChallengeFactory(target_dips=10)
    BadgeFactory(challenge=challenge, milestone_dips=5)
    with pytest.raises(ValidationError) as caught:
        challenge_save(challenge=challenge, badges=[BadgeSpec(id=None, name="Dubbel", milestone_dips=5)])
    assert "Er zijn twee badges bij 5 plonsen: één badge per mijlpaal." in caught.value.messages


def test_an_earned_badge_cannot_be_deleted():
    award = UserBadgeFactory()
    with pytest.raises(ValidationError):
        challenge_save(challenge=award.user_challenge.challenge, badges=[BadgeSpec(id=award.badge_id, delete=True)])
    assert Badge.objects.filter(pk=award.badge_id).exists()


def test_a_challenge_with_members_is_deactivated_not_deleted():
    card = UserChallengeFactory()
    with pytest.raises(ChallengeError, match="deelnemers"):
        challenge_delete(challenge_id=card.challenge_id)
    assert Challenge.objects.filter(pk=card.challenge_id).exists()
    empty = ChallengeFactory()
    BadgeFactory(challenge=empty)
    challenge_delete(challenge_id=empty.pk)
    assert not Challenge.objects.filter(pk=empty.pk).exists()


# --- the art pipeline -----------------------------------------------------------------------------


def test_badge_art_is_reencoded_as_png_with_transparency_kept_and_metadata_gone():
    jpeg = image_bytes(size=(1200, 800), exif=exif_with_gps_and_rotation())
    for content in (png_with_alpha(), jpeg, image_bytes(fmt="WEBP")):
        result = Image.open(io.BytesIO(badge_art_process(upload(content))))
        assert result.format == "PNG" and max(result.size) <= 512
        assert not result.info.get("exif") and "icc_profile" not in result.info
    assert Image.open(io.BytesIO(badge_art_process(upload(png_with_alpha())))).mode == "RGBA"


@pytest.mark.parametrize(
    ("content", "name", "message"),
    [
        (SVG, "badge.svg", MESSAGE_SVG_REFUSED),
        (SVG, "badge.png", MESSAGE_SVG_REFUSED),  # the name lies; the content does not
        (image_bytes(fmt="GIF"), "badge.gif", MESSAGE_BADGE_FORMAT),
        (b"geen afbeelding", "badge.png", MESSAGE_BADGE_FORMAT),
    ],
)
def test_badge_art_refuses_svg_and_other_formats(content, name, message):
    with pytest.raises(PhotoError, match=message):
        badge_art_process(upload(content, name))


def test_badge_art_is_served_publicly_with_a_long_cache(client):
    url = challenge_save(
        challenge=Challenge(name="Kunst", target_dips=1, category="special"),
        image_png=badge_art_process(upload(png_with_alpha())),
    ).badge_image_url
    response = client.get(url)
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert "immutable" in response["Cache-Control"]
    assert client.get("/badge-art/../../etc/passwd").status_code == 404
    assert client.get("/badge-art/" + "f" * 32 + ".png").status_code == 404


# --- the Django admin -----------------------------------------------------------------------------


def admin_form(name="Voorjaarsplons", target=10, badges=(), **extra):
    data = {
        "name": name,
        "description": "Tien plonsen in het voorjaar.",
        "category": "special",
        "target_dips": str(target),
        "badge_image_url": "",
        "is_active": "on",
        "badges-TOTAL_FORMS": str(len(badges)),
        "badges-INITIAL_FORMS": "0",
        "badges-MIN_NUM_FORMS": "0",
        "badges-MAX_NUM_FORMS": "1000",
    }
    for index, (milestone, badge_name, art) in enumerate(badges):
        data |= {
            f"badges-{index}-milestone_dips": str(milestone),
            f"badges-{index}-name": badge_name,
            f"badges-{index}-description": "",
            f"badges-{index}-image_url": "",
        }
        if art is not None:
            data[f"badges-{index}-image_upload"] = art
    return data | extra


def test_an_admin_creates_a_challenge_with_an_uploaded_badge_in_the_django_admin(admin_client, member):
    data = admin_form(badges=[(5, "Bot", upload(png_with_alpha())), (10, "Snoek", None)])
    data["badge_image_upload"] = upload(image_bytes(fmt="WEBP"), "kaart.webp", "image/webp")
    response = admin_client.post("/django-admin/challenges/challenge/add/", data)
    assert response.status_code == 302, response.context["errors"] if response.context else response
    challenge = Challenge.objects.get(name="Voorjaarsplons")
    assert challenge.badge_image_url.startswith("/badge-art/")
    assert list(challenge.badges.values_list("milestone_dips", flat=True)) == [5, 10]
    card = challenge_start(user=member, challenge_id=challenge.pk)
    assert card.challenge == challenge


@pytest.mark.parametrize(
    ("target", "badges", "message"),
    [
        (10, [(12, "Te ver", None)], "De badge bij 12 plonsen ligt voorbij het doel van 10 plonsen."),
        (10, [(5, "Een", None), (5, "Twee", None)], "Er zijn twee badges bij 5 plonsen: één badge per mijlpaal."),
        (0, [], "Het doel moet minstens 1 plons zijn."),
    ],
)
def test_the_django_admin_refuses_a_challenge_against_the_rules(admin_client, target, badges, message):
    response = admin_client.post("/django-admin/challenges/challenge/add/", admin_form(target=target, badges=badges))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Challenge.objects.filter(name="Voorjaarsplons").exists()


def test_the_django_admin_refuses_an_svg_badge(admin_client):
    data = admin_form(badges=[(5, "Script", upload(SVG, "badge.svg", "image/svg+xml"))])
    response = admin_client.post("/django-admin/challenges/challenge/add/", data)
    assert response.status_code == 200 and MESSAGE_SVG_REFUSED in response.content.decode()
    assert not Challenge.objects.filter(name="Voorjaarsplons").exists()


def test_the_django_admin_keeps_a_challenge_with_members(admin_client):
    card = UserChallengeFactory()
    response = admin_client.post(f"/django-admin/challenges/challenge/{card.challenge_id}/delete/", {"post": "yes"})
    assert Challenge.objects.filter(pk=card.challenge_id).exists()
    assert response.status_code in (200, 302)
    # Deactivating is the way: members keep their card, nobody new can start it.
    data = admin_form(name=card.challenge.name, target=card.challenge.target_dips)
    data.pop("is_active")
    response = admin_client.post(f"/django-admin/challenges/challenge/{card.challenge_id}/change/", data)
    assert response.status_code == 302
    assert Challenge.objects.get(pk=card.challenge_id).is_active is False


def test_challenge_delete_message_is_dutch():
    assert MESSAGE_CHALLENGE_HAS_MEMBERS.startswith("Deze challenge heeft deelnemers")


def test_a_badge_on_its_own_page_follows_the_same_rules(admin_client):
    challenge = ChallengeFactory(target_dips=10)
    BadgeFactory(challenge=challenge, milestone_dips=5)
    data = {"challenge": challenge.pk, "milestone_dips": "12", "name": "Te ver", "description": "", "image_url": ""}
    response = admin_client.post("/django-admin/challenges/badge/add/", data)
    assert "De badge bij 12 plonsen ligt voorbij het doel van 10 plonsen." in response.content.decode()
    response = admin_client.post("/django-admin/challenges/badge/add/", data | {"milestone_dips": "5"})
    assert "Er zijn twee badges bij 5 plonsen: één badge per mijlpaal." in response.content.decode()
    art = upload(png_with_alpha())
    response = admin_client.post(
        "/django-admin/challenges/badge/add/", data | {"milestone_dips": "10", "image_upload": art}
    )
    assert response.status_code == 302
    made = Badge.objects.get(challenge=challenge, milestone_dips=10)
    assert made.image_url.startswith("/badge-art/")


def test_replaced_art_is_removed_after_the_save(django_capture_on_commit_callbacks):
    challenge = challenge_save(
        challenge=Challenge(name="Wissel", target_dips=1, category="special"),
        image_png=badge_art_process(upload(png_with_alpha())),
    )
    first = challenge.badge_image_url
    storage = badge_art_storage()
    assert storage.exists(first.removeprefix("/badge-art/"))
    with django_capture_on_commit_callbacks(execute=True):
        challenge_save(challenge=challenge, image_png=badge_art_process(upload(image_bytes(fmt="PNG"))))
    assert challenge.badge_image_url != first
    assert not storage.exists(first.removeprefix("/badge-art/"))


def test_badge_art_storage_is_public_and_apart_from_the_photos(monkeypatch, tmp_path):
    from config.settings.storage import badge_art_storage_settings, photo_storage_settings

    local = badge_art_storage_settings(tmp_path)["OPTIONS"]
    assert local == {"location": tmp_path / "badge_art", "base_url": "/badge-art/"}
    monkeypatch.setenv("PHOTO_STORAGE", "s3")
    public = badge_art_storage_settings(tmp_path)["OPTIONS"]
    private = photo_storage_settings(tmp_path)["OPTIONS"]
    assert (public["default_acl"], public["querystring_auth"], public["location"]) == (
        "public-read",
        False,
        "badge-art",
    )
    assert (private["default_acl"], private["querystring_auth"]) == ("private", True)


def test_badge_art_refuses_pixel_bombs_and_broken_files():
    bomb = io.BytesIO()
    Image.new("1", (9000, 9000)).save(bomb, format="PNG")  # tiny file, 81 million pixels
    with pytest.raises(PhotoError, match="Deze afbeelding heeft te veel pixels"):
        badge_art_process(upload(bomb.getvalue()))
    whole = png_with_alpha()
    with pytest.raises(PhotoError, match="Deze afbeelding is beschadigd of onvolledig"):
        badge_art_process(upload(whole[: len(whole) // 2]))
    with pytest.raises(PhotoError, match=MESSAGE_BADGE_FORMAT):
        badge_art_process(upload(b""))
