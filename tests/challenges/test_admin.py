"""The Django admin writes dips, cards and badges only through the challenge services."""

import pytest
from django.urls import reverse

from apps.challenges.models import Challenge, Dip, UserBadge, UserChallenge
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dips import dip_register

pytestmark = pytest.mark.django_db


@pytest.fixture
def card_of_seven(member):
    waterdieren = Challenge.objects.get(category=Challenge.Category.WATERDIEREN)
    card = challenge_start(user=member, challenge_id=waterdieren.pk)
    dips = [dip_register(user=member).dip for _ in range(7)]
    return card, dips


def numbers(card) -> list[int]:
    return list(card.dips.order_by("number").values_list("number", flat=True))


def test_deleting_a_dip_in_the_middle_keeps_the_card_whole_and_the_next_dip_counts(
    admin_client, member, card_of_seven, client
):
    card, dips = card_of_seven
    response = admin_client.post(reverse("admin:challenges_dip_delete", args=[dips[2].pk]), {"post": "yes"})
    assert response.status_code == 302
    assert numbers(card) == [1, 2, 3, 4, 5, 6]

    client.force_login(member)
    answer = client.post("/challenge/plons")
    assert answer.status_code == 201, answer.content
    assert answer.json()["dipCount"] == 7


def test_deleting_dips_in_bulk_takes_back_the_badge_beyond_the_count(admin_client, card_of_seven):
    card, dips = card_of_seven
    selected = [dips[0].pk, dips[4].pk, dips[6].pk]
    response = admin_client.post(
        reverse("admin:challenges_dip_changelist"),
        {"action": "delete_selected", "_selected_action": selected, "post": "yes"},
    )
    assert response.status_code == 302
    assert numbers(card) == [1, 2, 3, 4]
    assert not UserBadge.objects.filter(user_challenge=card).exists()  # Waterslak needs 5


def test_dips_are_not_added_or_edited_in_the_admin(admin_client, card_of_seven):
    card, dips = card_of_seven
    assert admin_client.get(reverse("admin:challenges_dip_add")).status_code == 403
    change = reverse("admin:challenges_dip_change", args=[dips[0].pk])
    response = admin_client.post(change, {"number": 50, "dip_date": "2026-01-01", "user": dips[0].user_id})
    assert response.status_code == 403
    assert Dip.objects.get(pk=dips[0].pk).number == 1
    assert admin_client.get(change).status_code == 200  # still visible, read-only


def test_earned_badges_are_not_handed_out_or_removed_by_hand(admin_client, card_of_seven):
    card, _dips = card_of_seven
    award = UserBadge.objects.get(user_challenge=card)
    assert admin_client.get(reverse("admin:challenges_userbadge_add")).status_code == 403
    assert (
        admin_client.post(reverse("admin:challenges_userbadge_delete", args=[award.pk]), {"post": "yes"}).status_code
        == 403
    )
    assert UserBadge.objects.filter(pk=award.pk).exists()


def test_cards_are_not_started_or_edited_in_the_admin_but_can_be_removed_whole(admin_client, card_of_seven):
    card, _dips = card_of_seven
    assert admin_client.get(reverse("admin:challenges_userchallenge_add")).status_code == 403
    change = reverse("admin:challenges_userchallenge_change", args=[card.pk])
    assert admin_client.post(change, {"is_active": "", "challenge_type": "normal"}).status_code == 403

    # The confirmation page lists the dips and badges that go with it, without asking for their permissions.
    confirm = admin_client.get(reverse("admin:challenges_userchallenge_delete", args=[card.pk]))
    assert confirm.status_code == 200
    assert 'type="submit"' in confirm.content.decode()
    response = admin_client.post(reverse("admin:challenges_userchallenge_delete", args=[card.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert not UserChallenge.objects.filter(pk=card.pk).exists()
    assert not Dip.objects.filter(user_challenge_id=card.pk).exists()
