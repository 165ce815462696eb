"""One swim, one stamp (apps/challenges/services/same_swim.py): a dip is one time in the water. A second tap,
a buddy's "Zet op mijn kaart" and an organiser's "Was erbij" confirm the member's dip of that swim when there
is one, whatever DIP_DAILY_LIMIT_ENABLED says; the same local day and within DIP_SAME_SWIM_HOURS is one swim."""

import datetime
import uuid

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django.utils import timezone

from apps.attendance.models import Attendance
from apps.attendance.services import attendance_save
from apps.challenges.card_payloads import dip_buddy_names
from apps.challenges.conditions import DipConditions
from apps.challenges.models import ClubChallenge, Dip, DipBuddy
from apps.challenges.services.dips import dip_register
from apps.challenges.services.same_swim import same_swim_dip
from apps.together.services import MESSAGE_BUDDY_ALREADY, buddy_accept
from tests.factories import (
    AdminFactory,
    ChallengeFactory,
    ClubChallengeEntryFactory,
    ClubChallengeFactory,
    EventFactory,
    EventParticipantFactory,
    UserChallengeFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db

TZ_NOON = datetime.time(12)


@pytest.fixture(autouse=True, params=[False, True], ids=["no-daily-limit", "daily-limit"])
def rule(request, settings):
    """The production rule, with and without the daily limit: one swim, one stamp holds either way."""
    settings.DIP_SAME_SWIM_HOURS = 3
    settings.DIP_DAILY_LIMIT_ENABLED = request.param
    return request.param


def _at(hour: int, minute: int = 0, days_ago: int = 0) -> datetime.datetime:
    day = timezone.localdate() - datetime.timedelta(days=days_ago)
    return timezone.make_aware(datetime.datetime.combine(day, datetime.time(hour, minute)))


def _member(name="Bram Buddy", days_ago=5):
    member = UserFactory(full_name=name)
    card = UserChallengeFactory(
        user=member,
        challenge=ChallengeFactory(target_dips=25),
        started_at=timezone.now() - datetime.timedelta(days=days_ago),
    )
    return member, card


def test_a_second_tap_of_the_same_swim_confirms_the_first_and_adds_what_it_lacked():
    member, card = _member()
    first = dip_register(user=member, now=_at(9, days_ago=1), tapped_at=None)
    second = dip_register(
        user=member,
        now=_at(10, 30, days_ago=1),
        conditions=DipConditions(spot="Sloterplas"),
    )
    assert not first.confirmed and second.confirmed
    assert second.dip.pk == first.dip.pk and second.dip_count == 1
    assert card.dips.count() == 1
    assert Dip.objects.get(pk=first.dip.pk).spot == "Sloterplas"


def test_two_swims_on_one_day_more_than_the_window_apart_are_two_stamps(rule):
    member, card = _member()
    dip_register(user=member, now=_at(7, days_ago=1))
    if rule:  # the daily limit refuses the second swim of the day; without it, it counts
        return
    later = dip_register(user=member, now=_at(10, 1, days_ago=1))
    assert not later.confirmed and card.dips.count() == 2


def test_taps_either_side_of_midnight_are_two_days():
    member, card = _member()
    dip_register(user=member, now=_at(23, 30, days_ago=2))
    after = dip_register(user=member, now=_at(0, 30, days_ago=1))
    assert not after.confirmed and card.dips.count() == 2


def test_a_resend_with_the_same_request_id_is_still_a_replay():
    member, card = _member()
    request_id = uuid.uuid4()
    first = dip_register(user=member, request_id=request_id, now=_at(9, days_ago=1))
    again = dip_register(user=member, request_id=request_id, now=_at(9, 1, days_ago=1))
    assert again.replayed and again.dip.pk == first.dip.pk and card.dips.count() == 1


def test_the_stamp_card_hears_confirmed_as_a_code_and_nothing_is_added(client):
    member, card = _member()
    client.force_login(member)
    first = client.post("/challenge/plons", {"request_id": str(uuid.uuid4())})
    assert first.status_code == 201 and first.json()["outcome"] == "new"
    second = client.post("/challenge/plons", {"request_id": str(uuid.uuid4())})
    body = second.json()
    assert second.status_code == 200, body
    assert body["outcome"] == "confirmed" and body["dip"]["id"] == first.json()["dip"]["id"]
    assert body["dipCount"] == 1 and body["celebration"] is None and body["toasts"] == []
    assert card.dips.count() == 1


def _tag(*, tagger, buddy, moment):
    """Anna registers her dip and names Bram ("Met wie?")."""
    outcome = dip_register(user=tagger, buddy_ids=[buddy.pk], now=moment)
    return DipBuddy.objects.get(dip=outcome.dip, buddy=buddy)


def test_zet_op_mijn_kaart_confirms_the_members_own_dip_of_that_swim_and_names_the_tagger():
    anna, _ = _member("Anna Tagger")
    bram, bram_card = _member("Bram Buddy")
    own = dip_register(user=bram, now=_at(8, 45, days_ago=1))
    tag = _tag(tagger=anna, buddy=bram, moment=_at(9, days_ago=1))
    outcome = buddy_accept(user=bram, tag_id=tag.pk, now=_at(11, days_ago=1))
    assert outcome.confirmed and outcome.dip.pk == own.dip.pk
    assert bram_card.dips.count() == 1
    tag.refresh_from_db()
    assert tag.status == DipBuddy.Status.ACCEPTED and tag.buddy_dip_id == own.dip.pk
    # "Met Anna" on Bram's own dip.
    assert dip_buddy_names(user_id=bram.pk, card=bram_card)[own.dip.pk] == ["Anna Tagger"]


def test_zet_op_mijn_kaart_on_the_dashboard_says_which_happened():
    anna, _ = _member("Anna Tagger")
    bram, bram_card = _member("Bram Buddy")
    dip_register(user=bram)
    tag = _tag(tagger=anna, buddy=bram, moment=timezone.now())
    client = Client()
    client.force_login(bram)
    response = client.post(f"/samen/buddy/{tag.pk}/op-mijn-kaart")
    said = [str(message) for message in get_messages(response.wsgi_request)]
    assert MESSAGE_BUDDY_ALREADY.format(name="Anna Tagger") in said, said
    assert "Die plons stond al op je kaart: Anna Tagger is erbij gezet." in said
    assert bram_card.dips.count() == 1


def test_a_tag_without_an_own_dip_adds_one_and_a_later_own_tap_confirms_it():
    anna, _ = _member("Anna Tagger")
    bram, bram_card = _member("Bram Buddy")
    tag = _tag(tagger=anna, buddy=bram, moment=_at(9, days_ago=1))
    added = buddy_accept(user=bram, tag_id=tag.pk, now=_at(9, 30, days_ago=1))
    assert not added.confirmed and bram_card.dips.count() == 1
    tap = dip_register(user=bram, now=_at(10, days_ago=1))
    assert tap.confirmed and tap.dip.pk == added.dip.pk and bram_card.dips.count() == 1


def _club_swim(start):
    return EventFactory(title="Zondagduik", event_date=start)


def _an_hour_ago_today():
    """A swim that began about an hour ago, on today's date even just after midnight (a dip matches a swim of
    its own day)."""
    now = timezone.localtime()
    return max(now - datetime.timedelta(hours=1), now.replace(hour=0, minute=0, second=0, microsecond=0))


def test_was_erbij_signs_off_the_members_own_dip_and_an_untick_keeps_it():
    start = _an_hour_ago_today()
    swim = _club_swim(start)
    organiser = AdminFactory(full_name="Olga Organisator")
    bram, card = _member("Bram Buddy")
    EventParticipantFactory(event=swim, user=bram)
    own = dip_register(user=bram, now=start + datetime.timedelta(minutes=20))
    result = attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[bram.pk])
    assert result.confirmed == ["Bram Buddy"] and result.stamped == [] and result.refusals == []
    assert Attendance.objects.get(event=swim, user=bram).dip_id == own.dip.pk
    assert card.dips.count() == 1
    # The stamp card shows the sign-off on the member's own dip.
    client = Client()
    client.force_login(bram)
    assert "Afgetekend door Olga Organisator" in client.get("/challenge").content.decode()
    # Unticking takes the sign-off back, never the member's own dip.
    attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[])
    assert Dip.objects.filter(pk=own.dip.pk).exists() and card.dips.count() == 1


def test_a_tick_then_the_members_own_tap_confirms_the_stamp():
    start = _an_hour_ago_today()
    swim = _club_swim(start)
    bram, card = _member("Bram Buddy")
    EventParticipantFactory(event=swim, user=bram)
    attendance_save(event_id=swim.pk, organiser=AdminFactory(), present_user_ids=[bram.pk])
    tap = dip_register(user=bram)
    assert tap.confirmed and card.dips.count() == 1


def test_the_week_of_bram_tap_tag_and_tick_is_one_stamp():
    """The issue's morning: Bram registers with Anna, accepts Anna's tag, the organiser ticks him."""
    start = _an_hour_ago_today()
    swim = _club_swim(start)
    anna, _ = _member("Anna Tagger")
    bram, card = _member("Bram Buddy")
    EventParticipantFactory(event=swim, user=bram)
    dip_register(user=bram, buddy_ids=[anna.pk], now=start + datetime.timedelta(minutes=30))
    tag = _tag(tagger=anna, buddy=bram, moment=start + datetime.timedelta(minutes=35))
    buddy_accept(user=bram, tag_id=tag.pk)
    attendance_save(event_id=swim.pk, organiser=AdminFactory(), present_user_ids=[bram.pk])
    assert card.dips.count() == 1
    bram.refresh_from_db()
    assert bram.dip_count == 1


def test_dips_without_a_card_follow_the_rule_and_a_club_goal_counts_swims():
    goal = ClubChallengeFactory(kind=ClubChallenge.Kind.CLUB_GOAL, target=50)
    member = UserFactory()
    ClubChallengeEntryFactory(user=member, club_challenge=goal)
    for minute in range(5):
        dip_register(user=member, now=timezone.now() + datetime.timedelta(seconds=minute))
    assert Dip.objects.filter(user=member).count() == 1
    from apps.challenges.services.club_progress import club_goal_totals

    assert club_goal_totals([goal.pk])[goal.pk] == 1


def test_the_rule_can_be_turned_off(settings):
    settings.DIP_SAME_SWIM_HOURS = 0
    settings.DIP_DAILY_LIMIT_ENABLED = False
    member, card = _member()
    dip_register(user=member, now=_at(9, days_ago=1))
    assert same_swim_dip(user_id=member.pk, moment=_at(9, days_ago=1)) is None
    dip_register(user=member, now=_at(9, 5, days_ago=1))
    assert card.dips.count() == 2


def test_the_organiser_reads_that_the_dip_was_on_the_card_already(admin_client):
    start = _an_hour_ago_today()
    swim = _club_swim(start)
    bram, card = _member("Bram Buddy")
    EventParticipantFactory(event=swim, user=bram)
    dip_register(user=bram, now=start + datetime.timedelta(minutes=10))
    response = admin_client.post(f"/admin/events/{swim.pk}/aanwezig", {"aanwezig": [bram.pk]})
    said = [str(message) for message in get_messages(response.wsgi_request)]
    assert "Stond al op de kaart, nu afgetekend: Bram Buddy." in said, said
    assert card.dips.count() == 1
