"""Buddies on a dip: named with "Met wie?" in the dip request, asked on their dashboard, put on their own
card through dip_register (every rule of a dip holds) or declined; tagging can be turned off."""

import datetime
import json
import re

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.utils import timezone

from apps.challenges.models import Dip, DipBuddy, UserBadge
from apps.challenges.services.dip_rules import MESSAGE_COMPLETED
from apps.challenges.services.dips import dip_register
from apps.challenges.services.errors import ChallengeError
from apps.notifications.messages import render_mail
from apps.notifications.models import Mail
from apps.together.services import (
    MESSAGE_BUDDY_DONE,
    MESSAGE_BUDDY_ON_CARD,
    MESSAGE_BUDDY_UNKNOWN,
    TogetherError,
    buddy_accept,
    buddy_decline,
)
from tests.factories import BadgeFactory, ChallengeFactory, UserChallengeFactory, UserFactory

pytestmark = pytest.mark.django_db


def _card(user, *, days_ago: int = 5, target: int = 5):
    return UserChallengeFactory(
        user=user,
        challenge=ChallengeFactory(target_dips=target),
        started_at=timezone.now() - datetime.timedelta(days=days_ago),
    )


@pytest.fixture
def pair(member, other_member):
    _card(member)
    _card(other_member)
    return member, other_member


def test_the_dip_request_stores_its_buddies_in_the_dip_s_transaction(pair):
    member, other = pair
    client = Client()
    client.force_login(member)
    stranger_off = UserFactory(tagging_allowed=False)
    gone = UserFactory(is_active=False)
    response = client.post(
        "/challenge/plons", {"buddies": [str(other.pk), str(member.pk), str(stranger_off.pk), str(gone.pk), "999999"]}
    )
    assert response.status_code == 201
    dip = Dip.objects.get(pk=response.json()["dip"]["id"])
    # Only the clubmate who may be tagged: never the member, nobody who turned it off, no inactive account.
    assert list(dip.buddies.values_list("buddy_id", "status")) == [(other.pk, "pending")]
    mail = Mail.objects.get(kind="buddy_request")
    assert mail.user_id == other.pk
    rendered = render_mail(mail)
    assert "Marit Zwemmer plonste met jou op" in rendered.text and "/dashboard#buddies" in rendered.text


def test_a_buddy_field_that_is_no_id_is_a_clear_refusal_and_no_dip(pair):
    member, _other = pair
    client = Client()
    client.force_login(member)
    response = client.post("/challenge/plons", {"buddies": ["twee"]})
    assert response.status_code == 400 and "klopt niet" in response.json()["error"]
    assert not Dip.objects.exists()


def test_a_resent_dip_adds_no_second_request(pair):
    member, other = pair
    import uuid

    request_id = uuid.uuid4()
    dip_register(user=member, request_id=request_id, buddy_ids=[other.pk])
    dip_register(user=member, request_id=request_id, buddy_ids=[other.pk])
    assert DipBuddy.objects.count() == 1 and Mail.objects.filter(kind="buddy_request").count() == 1


def test_the_buddy_sees_the_request_and_puts_it_on_their_card_for_that_date(pair):
    member, other = pair
    yesterday = timezone.now() - datetime.timedelta(days=1)
    outcome = dip_register(user=member, tapped_at=yesterday, buddy_ids=[other.pk])
    tag = outcome.dip.buddies.get()
    client = Client()
    client.force_login(other)
    html = client.get("/dashboard").content.decode()
    assert "Marit Zwemmer</strong> plonste met jou op" in html
    assert "Zet op mijn kaart" in html and "Klopt niet" in html
    response = client.post(f"/samen/buddy/{tag.pk}/op-mijn-kaart")
    assert response["Location"] == "/dashboard#buddies"
    assert [str(message) for message in get_messages(response.wsgi_request)] == [MESSAGE_BUDDY_ON_CARD]
    own = Dip.objects.get(user=other)
    assert own.dip_date == outcome.dip.dip_date and own.number == 1
    tag.refresh_from_db()
    assert tag.status == DipBuddy.Status.ACCEPTED and tag.buddy_dip_id == own.pk
    html = client.get("/dashboard").content.decode()
    assert "plonste met jou op" not in html


def test_every_rule_of_a_dip_holds_for_the_buddy_s_dip(pair, settings):
    member, other = pair
    # The first dip earns the badge of the buddy's card: the same dip service awards it, the answer says so.
    card = other.user_challenges.get()
    BadgeFactory(challenge=card.challenge, milestone_dips=1)
    tag = dip_register(user=member, buddy_ids=[other.pk]).dip.buddies.get()
    badge_client = Client()
    badge_client.force_login(other)
    response = badge_client.post(f"/samen/buddy/{tag.pk}/op-mijn-kaart")
    told = [str(message) for message in get_messages(response.wsgi_request)]
    assert told == [MESSAGE_BUDDY_ON_CARD, f"Badge verdiend: {card.challenge.badges.get().name}!"]
    assert UserBadge.objects.filter(user=other).count() == 1
    # The daily limit: a second dip that day is refused with the dip service's own message.
    settings.DIP_DAILY_LIMIT_ENABLED = True
    third_member = UserFactory()
    _card(third_member)
    tag_two = dip_register(user=third_member, buddy_ids=[other.pk]).dip.buddies.get()
    with pytest.raises(ChallengeError, match="al een plons geregistreerd"):
        buddy_accept(user=other, tag_id=tag_two.pk)
    assert DipBuddy.objects.get(pk=tag_two.pk).status == DipBuddy.Status.PENDING


def _celebration(html: str):
    found = re.search(r'<script id="celebration-data" type="application/json">(.*?)</script>', html)
    return json.loads(found.group(1)) if found else None


def test_a_badge_earned_with_zet_op_mijn_kaart_is_celebrated_on_the_next_dashboard_view(pair):
    member, other = pair
    card = other.user_challenges.get()
    badge = BadgeFactory(challenge=card.challenge, milestone_dips=1, name="Eerste plons")
    tag = dip_register(user=member, buddy_ids=[other.pk]).dip.buddies.get()
    client = Client()
    client.force_login(other)
    html = client.post(f"/samen/buddy/{tag.pk}/op-mijn-kaart", follow=True).content.decode()
    # The dashboard after the accept plays the stamp card's milestone celebration with the badge earned.
    assert _celebration(html) == {
        "kind": "milestone",
        "badge": {"name": "Eerste plons", "milestone": 1, "imageUrl": badge.image_src},
    }
    # The badge's message, and the celebration island on the page.
    assert "Badge verdiend: Eerste plons!" in html and re.search(r'<script type="module"[^>]*celebration', html)
    # Once: the visit after that has no celebration, and a second tap (the same dip back) none either.
    assert _celebration(client.get("/dashboard").content.decode()) is None
    again = client.post(f"/samen/buddy/{tag.pk}/op-mijn-kaart", follow=True).content.decode()
    assert _celebration(again) is None and Dip.objects.filter(user=other).count() == 1


def test_a_card_completed_with_zet_op_mijn_kaart_plays_the_completion(member, other_member):
    _card(member)
    card = _card(other_member, target=2)
    badge = BadgeFactory(challenge=card.challenge, milestone_dips=2, name="Twee keer koud")
    dip_register(user=other_member, now=timezone.now() - datetime.timedelta(days=2))
    tag = dip_register(user=member, buddy_ids=[other_member.pk]).dip.buddies.get()
    client = Client()
    client.force_login(other_member)
    response = client.post(f"/samen/buddy/{tag.pk}/op-mijn-kaart", follow=True)
    html = response.content.decode()
    card.refresh_from_db()
    assert card.completed_at is not None
    # A completion outranks the badge: the completion celebration, with the badge the last dip earned.
    assert _celebration(html) == {
        "kind": "completion",
        "badge": {"name": "Twee keer koud", "milestone": 2, "imageUrl": badge.image_src},
    }
    assert "Challenge voltooid!" in html
    assert _celebration(client.get("/dashboard").content.decode()) is None


def test_an_accept_that_earns_nothing_plays_no_celebration(pair):
    member, other = pair
    tag = dip_register(user=member, buddy_ids=[other.pk]).dip.buddies.get()
    client = Client()
    client.force_login(other)
    html = client.post(f"/samen/buddy/{tag.pk}/op-mijn-kaart", follow=True).content.decode()
    assert MESSAGE_BUDDY_ON_CARD in html and _celebration(html) is None


def test_a_completed_card_takes_no_buddy_dip(member, other_member):
    _card(member)
    card = _card(other_member, target=1)
    dip_register(user=other_member)
    card.refresh_from_db()
    assert card.is_completed
    tag = dip_register(user=member, buddy_ids=[other_member.pk]).dip.buddies.get()
    with pytest.raises(ChallengeError, match=re.escape(MESSAGE_COMPLETED)):
        buddy_accept(user=other_member, tag_id=tag.pk)


def test_a_dip_from_before_the_buddy_s_card_started_is_refused(member, other_member):
    _card(member, days_ago=10)
    tag = dip_register(
        user=member, tapped_at=timezone.now() - datetime.timedelta(hours=60), buddy_ids=[other_member.pk]
    )
    tag = tag.dip.buddies.get()
    _card(other_member, days_ago=1)
    with pytest.raises(ChallengeError, match="voordat je challenge begon"):
        buddy_accept(user=other_member, tag_id=tag.pk)


def test_without_an_active_card_the_buddy_hears_so_through_the_form(member, other_member):
    _card(member)
    tag = dip_register(user=member, buddy_ids=[other_member.pk]).dip.buddies.get()
    client = Client()
    client.force_login(other_member)
    response = client.post(f"/samen/buddy/{tag.pk}/op-mijn-kaart")
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["Je hebt geen actieve challenge."]
    assert DipBuddy.objects.get(pk=tag.pk).status == DipBuddy.Status.PENDING


def test_klopt_niet_declines_once_and_another_member_cannot_answer(pair):
    member, other = pair
    tag = dip_register(user=member, buddy_ids=[other.pk]).dip.buddies.get()
    with pytest.raises(TogetherError, match=re.escape(MESSAGE_BUDDY_UNKNOWN)):
        buddy_decline(user=member, tag_id=tag.pk)
    with pytest.raises(TogetherError, match=re.escape(MESSAGE_BUDDY_UNKNOWN)):
        buddy_accept(user=member, tag_id=tag.pk)
    buddy_decline(user=other, tag_id=tag.pk)
    buddy_decline(user=other, tag_id=tag.pk)
    assert DipBuddy.objects.get(pk=tag.pk).status == DipBuddy.Status.DECLINED
    with pytest.raises(TogetherError, match=re.escape(MESSAGE_BUDDY_DONE)):
        buddy_accept(user=other, tag_id=tag.pk)
    assert not Dip.objects.filter(user=other).exists()


def test_tagging_can_be_turned_off_on_account(pair):
    member, other = pair
    client = Client()
    client.force_login(other)
    assert "Anderen mogen mij taggen" in client.get("/account").content.decode()
    response = client.post("/account/taggen", {})
    assert response["Location"] == "/account#samen"
    other.refresh_from_db()
    assert other.tagging_allowed is False
    dip_register(user=member, buddy_ids=[other.pk])
    assert not DipBuddy.objects.exists()
    client.post("/account/taggen", {"tagging_allowed": "on"})
    other.refresh_from_db()
    assert other.tagging_allowed is True


def test_the_buddies_leave_with_either_account(pair):
    from apps.accounts.removal import user_delete
    from tests.factories import AdminFactory

    admin = AdminFactory()
    member, other = pair
    tag = dip_register(user=member, buddy_ids=[other.pk]).dip.buddies.get()
    buddy_accept(user=other, tag_id=tag.pk)
    user_delete(actor=admin, user_id=other.pk)
    assert not DipBuddy.objects.exists()
    assert Dip.objects.filter(user=member).count() == 1
    third = UserFactory()
    _card(third)
    dip_register(user=member, tapped_at=timezone.now() - datetime.timedelta(days=1), buddy_ids=[third.pk])
    user_delete(actor=admin, user_id=member.pk)
    assert not DipBuddy.objects.exists()


def test_a_tap_sent_later_from_the_phone_brings_its_buddies_comma_separated(pair):
    member, other = pair
    third = UserFactory()
    client = Client()
    client.force_login(member)
    response = client.post("/challenge/plons", {"buddies": f"{other.pk},{third.pk}"})
    assert response.status_code == 201
    assert sorted(DipBuddy.objects.values_list("buddy_id", flat=True)) == sorted([other.pk, third.pk])


def test_an_undone_dip_takes_its_requests_and_their_unsent_mails_along(pair):
    from apps.challenges.services.dip_changes import dip_undo

    member, other = pair
    outcome = dip_register(user=member, buddy_ids=[other.pk])
    assert Mail.objects.filter(kind="buddy_request").count() == 1
    dip_undo(user=member, dip_id=outcome.dip.pk)
    assert not DipBuddy.objects.exists()
    assert not Mail.objects.filter(kind="buddy_request").exists()


def test_the_buddies_are_on_the_dip_s_line_of_both_members_and_klopt_niet_takes_them_off(member, other_member):
    from apps.challenges.card_payloads import buddies_display, stamp_card_props

    assert buddies_display([]) == "" and buddies_display(["Anna"]) == "Met Anna"
    assert buddies_display(["Anna", "Bram", "Cor"]) == "Met Anna, Bram en Cor"
    member.full_name, other_member.full_name = "Mies Lid", "Bram Buddy"
    member.save(update_fields=["full_name"])
    other_member.save(update_fields=["full_name"])
    mine = _card(member)
    theirs = _card(other_member)
    third = UserFactory(full_name="Cor Derde")
    third_card = _card(third)
    dip = dip_register(user=member, buddy_ids=[other_member.pk, third.pk]).dip
    assert stamp_card_props(mine)["recentDips"][0]["buddiesDisplay"] == "Met Bram Buddy en Cor Derde"
    # Cor says "Klopt niet": off the line. Bram puts it on his card: on his dip's line, with the one who named him.
    buddy_decline(user=third, tag_id=dip.buddies.get(buddy=third).pk)
    buddy_accept(user=other_member, tag_id=dip.buddies.get(buddy=other_member).pk)
    assert stamp_card_props(mine)["recentDips"][0]["buddiesDisplay"] == "Met Bram Buddy"
    assert stamp_card_props(theirs)["recentDips"][0]["buddiesDisplay"] == "Met Mies Lid"
    assert stamp_card_props(third_card)["recentDips"] == []


def test_tags_of_one_member_by_one_member_are_one_request_a_day_like_brrrs(pair):
    """Issue 36: tagging one clubmate on 25 dips told them 25 times within seconds. One request a day per clubmate
    now; another clubmate's tag is told on its own, and the dashboard lists every tag."""
    from apps.notifications.models import Notice
    from tests.factories import DipBuddyFactory, DipFactory

    member, other = pair
    from apps.challenges.models import UserChallenge

    card = UserChallenge.objects.get(user=member, is_active=True)
    for days_ago in range(25):
        dip = DipFactory(user_challenge=card, dip_date=timezone.localdate() - datetime.timedelta(days=days_ago))
        DipBuddyFactory(dip=dip, buddy=other)
    assert DipBuddy.objects.filter(buddy=other).count() == 25
    told = Mail.objects.filter(user=other, kind="buddy_request").count() + Notice.objects.filter(user=other).count()
    assert told == 1
    # The mail names the clubmate and their latest tag.
    rendered = render_mail(Mail.objects.get(user=other, kind="buddy_request"))
    assert f"{member.display_name} plonste met jou op" in rendered.text

    third = UserFactory()
    DipBuddyFactory(dip=DipFactory(user_challenge=_card(third)), buddy=other)
    assert Mail.objects.filter(user=other, kind="buddy_request").count() == 2


def test_an_undone_tag_keeps_the_request_while_other_tags_of_that_clubmate_wait(pair):
    from apps.challenges.services.dip_changes import dip_undo

    member, other = pair
    first = dip_register(user=member, tapped_at=timezone.now() - datetime.timedelta(days=1), buddy_ids=[other.pk])
    second = dip_register(user=member, buddy_ids=[other.pk])
    assert Mail.objects.filter(kind="buddy_request").count() == 1
    dip_undo(user=member, dip_id=second.dip.pk)
    assert Mail.objects.filter(kind="buddy_request").count() == 1  # the other tag still waits for an answer
    Dip.objects.filter(pk=first.dip.pk).delete()  # gone past the services too (an account deleted)
    assert not Mail.objects.filter(kind="buddy_request").exists()
