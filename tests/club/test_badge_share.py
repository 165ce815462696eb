"""'Deel je badge': a square PNG drawn by the server, only for the badge's owner."""

import io

import pytest
from django.core.files.base import ContentFile
from PIL import Image

from apps.challenges.badge_art import badge_art_storage
from apps.challenges.models import Challenge
from apps.club.badge_image import SIDE, badge_share_png
from tests.challenges.photo_samples import image_bytes
from tests.factories import BadgeFactory, UserBadgeFactory, UserChallengeFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def award(member):
    challenge = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    badge = challenge.badges.order_by("milestone_dips").first()
    return UserBadgeFactory(user_challenge=UserChallengeFactory(user=member, challenge=challenge), badge=badge)


def test_the_owner_gets_a_square_png_with_a_download_name(member_client, award):
    response = member_client.get(f"/club/badge/{award.pk}/deel.png")
    assert response.status_code == 200 and response["Content-Type"] == "image/png"
    assert response["Cache-Control"].startswith("private")
    assert f'filename="badge-{award.badge.name.lower()}.png"' in response["Content-Disposition"]
    image = Image.open(io.BytesIO(response.content))
    assert image.format == "PNG" and image.size == (SIDE, SIDE)


@pytest.mark.parametrize("who", ["other_member", "admin_user"])
def test_nobody_else_gets_it_not_even_an_admin(client, award, who, request):
    client.force_login(request.getfixturevalue(who))
    assert client.get(f"/club/badge/{award.pk}/deel.png").status_code == 404


def test_anonymous_visitors_go_to_auth(client, award):
    response = client.get(f"/club/badge/{award.pk}/deel.png")
    assert response.status_code == 302 and response["Location"].startswith("/auth")


def test_the_dashboard_offers_deel_je_badge_on_each_earned_badge(member_client, award):
    html = member_client.get("/dashboard").content.decode()
    assert "Deel je badge" in html and f'href="/club/badge/{award.pk}/deel.png"' in html
    assert "js/share-badge" in html and "<script>" not in html


def _pixels(png: bytes) -> Image.Image:
    return Image.open(io.BytesIO(png)).convert("RGB")


def test_uploaded_art_is_drawn_and_a_missing_file_gives_the_medal(member, settings):
    name = "0123456789abcdef0123456789abcdef.png"
    storage = badge_art_storage()
    if not storage.exists(name):
        storage.save(name, ContentFile(image_bytes("PNG", size=(64, 64))))
    challenge = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    with_art = UserBadgeFactory(
        user_challenge=UserChallengeFactory(user=member, challenge=challenge),
        badge=BadgeFactory(challenge=challenge, milestone_dips=77, name="Zeehond", image_url=f"/badge-art/{name}"),
    )
    lost = UserBadgeFactory(
        user_challenge=UserChallengeFactory(user=member, challenge=challenge, is_active=False),
        badge=BadgeFactory(
            challenge=challenge, milestone_dips=78, name="Zeehond", image_url="/badge-art/" + "f" * 32 + ".png"
        ),
    )
    drawn, medal = _pixels(badge_share_png(with_art)), _pixels(badge_share_png(lost))
    assert drawn.getpixel((SIDE // 2, 350)) != medal.getpixel((SIDE // 2, 350))
    # The club's name is a setting; another name draws another image.
    settings.CLUB_NAME = "IJsberen Zandvoort"
    assert _pixels(badge_share_png(lost)).tobytes() != medal.tobytes()


def test_the_catalogues_art_is_drawn_from_its_png_beside_the_svg(member):
    challenge = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    kikker = challenge.badges.get(image_url="badges/kikker.svg")
    drawn = UserBadgeFactory(user_challenge=UserChallengeFactory(user=member, challenge=challenge), badge=kikker)
    without = UserBadgeFactory(
        user_challenge=UserChallengeFactory(user=member, challenge=challenge, is_active=False),
        badge=BadgeFactory(
            challenge=challenge, milestone_dips=99, name=kikker.name, image_url="badges/bestaat-niet.svg"
        ),
    )
    # The frog is green where the medal is gold.
    red, green, _blue = _pixels(badge_share_png(drawn)).getpixel((SIDE // 2, 340))
    assert green > red
    red, green, _blue = _pixels(badge_share_png(without)).getpixel((SIDE // 2, 200))
    assert red > green
