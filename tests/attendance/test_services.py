"""Was erbij: ticking stamps a dip on the member's active card for the event's date through dip_register;
unticking takes it back through dip_delete; saving twice stamps once; the window is start to 48 hours after."""

import datetime

import pytest
from django.utils import timezone

from apps.attendance.models import Attendance
from apps.attendance.selectors import (
    MESSAGE_FIND_MANY,
    MESSAGE_FIND_NONE,
    attendance_rows,
    member_find,
)
from apps.attendance.services import (
    MESSAGE_CANCELLED,
    MESSAGE_NOT_ON_LIST,
    MESSAGE_TOO_LATE,
    AttendanceError,
    attendance_save,
)
from apps.challenges.models import Dip, UserBadge
from apps.core.errors import DomainError
from apps.events.services import event_cancel
from tests.factories import (
    AdminFactory,
    BadgeFactory,
    DipFactory,
    EventFactory,
    EventParticipantFactory,
    UserChallengeFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def organiser():
    return AdminFactory(full_name="Olga Organisator")


@pytest.fixture
def swim():
    """A club swim that started an hour ago."""
    return EventFactory(title="Zondagduik", event_date=timezone.now() - datetime.timedelta(hours=1))


def _member_with_card(event, name="Marit Zwemmer", **card):
    member = UserFactory(full_name=name)
    card = UserChallengeFactory(user=member, started_at=timezone.now() - datetime.timedelta(days=3), **card)
    EventParticipantFactory(event=event, user=member)
    return member, card


def test_ticking_stamps_a_dip_for_the_events_date_signed_off_by_the_organiser(swim, organiser):
    member, card = _member_with_card(swim)
    result = attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[member.pk])
    assert result.stamped == ["Marit Zwemmer"] and result.refusals == []
    dip = Dip.objects.get(user_challenge=card)
    assert dip.dip_date == timezone.localdate(swim.event_date)
    record = Attendance.objects.get(event=swim, user=member)
    assert (record.dip_id, record.signed_off_by_id) == (dip.pk, organiser.pk)
    member.refresh_from_db()
    assert member.dip_count == 1


def test_saving_twice_stamps_once(swim, organiser):
    member, card = _member_with_card(swim)
    attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[member.pk])
    again = attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[member.pk])
    assert again.stamped == []
    assert card.dips.count() == 1 and Attendance.objects.count() == 1


def test_unticking_takes_the_dip_back_with_the_recount_of_undo(swim, organiser):
    member, card = _member_with_card(swim)
    earlier = DipFactory(user_challenge=card, number=1, dip_date=timezone.localdate() - datetime.timedelta(days=2))
    BadgeFactory(challenge=card.challenge, milestone_dips=2)
    attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[member.pk])
    assert UserBadge.objects.filter(user_challenge=card).count() == 1  # the second dip earned the badge
    result = attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[])
    assert result.taken_back == ["Marit Zwemmer"]
    assert list(card.dips.values_list("pk", flat=True)) == [earlier.pk]
    assert not UserBadge.objects.filter(user_challenge=card).exists()
    assert not Attendance.objects.exists()
    member.refresh_from_db()
    assert member.dip_count == 1


def test_a_member_without_an_active_card_is_named_and_gets_nothing(swim, organiser):
    member = UserFactory(full_name="Kees Zonderkaart")
    EventParticipantFactory(event=swim, user=member)
    result = attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[member.pk])
    assert result.refusals == ["Kees Zonderkaart heeft geen actieve challenge: er is niets afgetekend."]
    assert not Dip.objects.exists()
    assert Attendance.objects.get(user=member).dip is None  # was there all the same
    # A card started later: the next save stamps (within the window), once.
    UserChallengeFactory(user=member, started_at=timezone.now() - datetime.timedelta(days=1))
    assert attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[member.pk]).stamped == [
        "Kees Zonderkaart"
    ]


def test_every_card_rule_applies_a_dip_that_day_already(swim, organiser, settings):
    settings.DIP_DAILY_LIMIT_ENABLED = True
    member, card = _member_with_card(swim)
    DipFactory(user_challenge=card, number=1, dip_date=timezone.localdate(swim.event_date))
    result = attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[member.pk])
    assert result.stamped == []
    assert result.refusals[0].startswith("Marit Zwemmer heeft op ")
    assert card.dips.count() == 1


def test_every_card_rule_applies_a_full_card(swim, organiser):
    member, card = _member_with_card(swim, challenge__target_dips=1)
    DipFactory(user_challenge=card, number=1, dip_date=timezone.localdate() - datetime.timedelta(days=2))
    result = attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[member.pk])
    assert result.refusals == ["De challenge van Marit Zwemmer is al vol of voltooid: er is niets afgetekend."]
    assert card.dips.count() == 1


def test_a_walk_in_member_is_added_and_stamped(swim, organiser):
    walk_in = UserFactory(full_name="Wim Zonderaanmelding", email="wim@example.nl")
    UserChallengeFactory(user=walk_in, started_at=timezone.now() - datetime.timedelta(days=3))
    assert member_find("WIM@example.nl") == walk_in
    result = attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[], walk_in=walk_in)
    assert result.stamped == ["Wim Zonderaanmelding"]
    rows = attendance_rows(swim)
    assert [(row.user, row.signed_up, row.present, row.stamped) for row in rows] == [(walk_in, False, True, True)]


def test_only_the_list_can_be_ticked(swim, organiser):
    stranger = UserFactory()
    with pytest.raises(AttendanceError, match=MESSAGE_NOT_ON_LIST.split(".")[0]):
        attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[stranger.pk])


def test_member_find_refuses_in_dutch():
    UserFactory(full_name="Jan Jansen", email="jan1@example.nl")
    UserFactory(full_name="Jan Jansen", email="jan2@example.nl")
    with pytest.raises(DomainError, match=MESSAGE_FIND_MANY):
        member_find("jan jansen")
    with pytest.raises(DomainError, match=MESSAGE_FIND_NONE):
        member_find("niemand@example.nl")


@pytest.mark.parametrize(
    ("starts_in", "message"),
    [
        (datetime.timedelta(hours=1), "Aftekenen kan vanaf de start van het event"),
        (-datetime.timedelta(hours=49), MESSAGE_TOO_LATE),
    ],
)
def test_outside_the_window_nothing_is_stamped_or_taken_back(organiser, starts_in, message):
    event = EventFactory(event_date=timezone.now() + starts_in)
    member = UserFactory()
    EventParticipantFactory(event=event, user=member)
    with pytest.raises(AttendanceError, match=message):
        attendance_save(event_id=event.pk, organiser=organiser, present_user_ids=[member.pk])
    assert not Attendance.objects.exists()


def test_an_afgelast_event_has_nothing_to_sign_off(organiser):
    event = EventFactory(event_date=timezone.now() + datetime.timedelta(hours=2))
    event_cancel(event_id=event.pk, reason="Onweer")
    event.refresh_from_db()
    with pytest.raises(AttendanceError, match=MESSAGE_CANCELLED):
        attendance_save(event_id=event.pk, organiser=organiser, present_user_ids=[], now=event.event_date)


def test_the_organiser_leaving_keeps_the_stamp(swim, organiser):
    member, card = _member_with_card(swim)
    attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[member.pk])
    organiser.delete()
    record = Attendance.objects.get()
    assert record.signed_off_by is None and record.dip is not None


def test_deleting_the_members_account_deletes_their_attendance(swim, organiser, django_capture_on_commit_callbacks):
    from apps.accounts.removal import account_delete
    from tests.factories import DEFAULT_PASSWORD

    member, _card = _member_with_card(swim)
    kept, _ = _member_with_card(swim, name="Otto Blijft")
    attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[member.pk, kept.pk])
    with django_capture_on_commit_callbacks(execute=True):
        account_delete(user=member, password=DEFAULT_PASSWORD)
    assert list(Attendance.objects.values_list("user_id", flat=True)) == [kept.pk]


def test_the_card_shows_afgetekend_door_on_that_dip_only(swim, organiser):
    from apps.challenges.card_payloads import stamp_card_props

    member, card = _member_with_card(swim)
    DipFactory(user_challenge=card, number=1, dip_date=timezone.localdate() - datetime.timedelta(days=2))
    attendance_save(event_id=swim.pk, organiser=organiser, present_user_ids=[member.pk])
    dips = stamp_card_props(card)["recentDips"]
    assert [(dip["number"], dip["signedOffBy"]) for dip in dips] == [
        (2, "Afgetekend door Olga Organisator"),
        (1, None),
    ]
