"""Waitlist offers: a freed place is offered to the first in line with a deadline ("Er is een plek vrij bij
{event}: bevestig vóór {tijd}"), answered with Ik kom / Ik kan niet on /events; on a decline or expiry the
next in line gets it; the cron command expires offers; one place, one offer, also under parallel load."""

import datetime
import io

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.utils import formats, timezone

from apps.events.models import EventWaitlistEntry
from apps.events.services import (
    MESSAGE_OFFER_DECLINED,
    MESSAGE_OFFER_EXPIRED,
    MESSAGE_OFFER_NONE,
    MESSAGE_OFFER_NOT_YET,
    MESSAGE_OFFER_TAKEN,
    EventError,
    Left,
    OfferAnswer,
    OfferEnded,
    event_leave,
    event_sign_up,
    waitlist_offer_accept,
    waitlist_offer_decline,
    waitlist_offers_expire,
)
from apps.notifications.models import Mail
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import EventFactory, EventParticipantFactory, UserFactory

pytestmark = pytest.mark.django_db


def offered(event) -> list[int]:
    return list(event.waitlist.filter(offer_expires_at__isnull=False).order_by("id").values_list("user_id", flat=True))


def waiting(event) -> list[int]:
    return list(event.waitlist.filter(offer_expires_at__isnull=True).order_by("id").values_list("user_id", flat=True))


def offer_mails(user) -> list[str]:
    return list(Mail.objects.filter(kind="waitlist_offer", user=user).values_list("status", flat=True))


@pytest.fixture
def full():
    """A full event (one place), its participant, and two members waiting in order."""
    event = EventFactory(title="Zondagduik", max_participants=1, event_date=timezone.now() + datetime.timedelta(days=3))
    participant = EventParticipantFactory(event=event).user
    first, second = UserFactory.create_batch(2)
    event_sign_up(user=first, event_id=event.pk)
    event_sign_up(user=second, event_id=event.pk)
    return event, participant, first, second


def expire(event, user):
    EventWaitlistEntry.objects.filter(event=event, user=user).update(
        offer_expires_at=timezone.now() - datetime.timedelta(minutes=1)
    )


# The offer --------------------------------------------------------------------------------------------------


def test_a_freed_place_is_offered_not_given(full):
    event, participant, first, second = full
    before = timezone.now()
    assert event_leave(user=participant, event_id=event.pk) == Left.PLACE
    assert event.participants.count() == 0
    assert offered(event) == [first.pk] and waiting(event) == [second.pk]
    entry = event.waitlist.get(user=first)
    assert before <= entry.offered_at <= timezone.now()
    assert entry.offer_expires_at - entry.offered_at == datetime.timedelta(hours=12)
    assert offer_mails(first) == [Mail.Status.QUEUED] and offer_mails(second) == []


def test_the_offer_holds_the_place_against_a_newcomer(full):
    event, participant, first, _second = full
    event_leave(user=participant, event_id=event.pk)
    newcomer = UserFactory()
    assert event_sign_up(user=newcomer, event_id=event.pk).waitlist_position == 3
    assert event.participants.count() == 0


@override_settings(WAITLIST_OFFER_HOURS=3)
def test_the_offer_lasts_the_setting():
    event = EventFactory(max_participants=1)
    leaving = EventParticipantFactory(event=event).user
    member = UserFactory()
    event_sign_up(user=member, event_id=event.pk)
    event_leave(user=leaving, event_id=event.pk)
    entry = event.waitlist.get(user=member)
    assert entry.offer_expires_at - entry.offered_at == datetime.timedelta(hours=3)


def test_close_to_the_start_the_offer_ends_at_the_start():
    start = timezone.now() + datetime.timedelta(hours=2)
    event = EventFactory(max_participants=1, event_date=start)
    leaving = EventParticipantFactory(event=event).user
    member = UserFactory()
    event_sign_up(user=member, event_id=event.pk)
    event_leave(user=leaving, event_id=event.pk)
    assert event.waitlist.get(user=member).offer_expires_at == start


# Ik kom / Ik kan niet ------------------------------------------------------------------------------------


def test_ik_kom_takes_the_place_and_withdraws_the_unsent_mail(full):
    event, participant, first, second = full
    event_leave(user=participant, event_id=event.pk)
    assert waitlist_offer_accept(user=first, event_id=event.pk) == OfferAnswer.TAKEN
    assert list(event.participants.values_list("user_id", flat=True)) == [first.pk]
    assert offered(event) == [] and waiting(event) == [second.pk]
    assert offer_mails(first) == []  # the member answered before the mail went: no mail about it any more
    assert waitlist_offer_accept(user=first, event_id=event.pk) == OfferAnswer.ALREADY


def test_ik_kom_without_an_offer_is_refused(full):
    event, _participant, first, _second = full
    with pytest.raises(OfferEnded) as refused:
        waitlist_offer_accept(user=first, event_id=event.pk)
    assert str(refused.value) == MESSAGE_OFFER_NOT_YET
    with pytest.raises(OfferEnded) as refused:
        waitlist_offer_accept(user=UserFactory(), event_id=event.pk)
    assert str(refused.value) == MESSAGE_OFFER_NONE
    assert event.participants.count() == 1


def test_ik_kom_after_the_deadline_is_refused_and_the_place_goes_on(full):
    event, participant, first, second = full
    event_leave(user=participant, event_id=event.pk)
    expire(event, first)
    with pytest.raises(OfferEnded) as refused:
        waitlist_offer_accept(user=first, event_id=event.pk)
    assert str(refused.value) == MESSAGE_OFFER_EXPIRED
    # Committed although the accept was refused: the expired one is off the list, the next one has the offer.
    assert not event.waitlist.filter(user=first).exists()
    assert offered(event) == [second.pk] and offer_mails(second) == [Mail.Status.QUEUED]
    assert event.participants.count() == 0


def test_ik_kan_niet_hands_the_offer_to_the_next_in_line(full):
    event, participant, first, second = full
    event_leave(user=participant, event_id=event.pk)
    assert waitlist_offer_decline(user=first, event_id=event.pk) == OfferAnswer.DECLINED
    assert not event.waitlist.filter(user=first).exists() and offer_mails(first) == []
    assert offered(event) == [second.pk]
    assert waitlist_offer_decline(user=first, event_id=event.pk) is None  # twice: nothing more happens


def test_the_last_one_declining_leaves_the_place_free(full):
    event, participant, first, second = full
    event_leave(user=participant, event_id=event.pk)
    waitlist_offer_decline(user=first, event_id=event.pk)
    waitlist_offer_decline(user=second, event_id=event.pk)
    newcomer = UserFactory()
    assert event_sign_up(user=newcomer, event_id=event.pk).participant is not None


def test_a_past_event_takes_no_answer(full):
    event, participant, first, _second = full
    event_leave(user=participant, event_id=event.pk)
    event.event_date = timezone.now() - datetime.timedelta(minutes=1)
    event.save()
    with pytest.raises(EventError):
        waitlist_offer_accept(user=first, event_id=event.pk)


# Expiry by cron ---------------------------------------------------------------------------------------------


def test_the_cron_command_expires_offers_and_offers_on_idempotently(full):
    event, participant, first, second = full
    event_leave(user=participant, event_id=event.pk)
    out = io.StringIO()
    call_command("send_scheduled_mail", stdout=out)
    assert "0 verlopen wachtlijstaanbod(en)" in out.getvalue()
    assert offered(event) == [first.pk]

    later = (timezone.now() + datetime.timedelta(hours=13)).isoformat()
    out = io.StringIO()
    call_command("send_scheduled_mail", f"--now={later}", stdout=out)
    assert "1 verlopen wachtlijstaanbod(en)" in out.getvalue()
    assert not event.waitlist.filter(user=first).exists()
    assert offered(event) == [second.pk]
    assert event.waitlist.get(user=second).offered_at.isoformat() == later
    # A second run at the same moment: the new offer has not run out, nothing changes.
    call_command("send_scheduled_mail", f"--now={later}", stdout=io.StringIO())
    assert offered(event) == [second.pk] and offer_mails(second) == [Mail.Status.QUEUED]


def test_an_unsent_offer_mail_is_withdrawn_when_the_offer_expires(full):
    event, participant, first, _second = full
    event_leave(user=participant, event_id=event.pk)
    expire(event, first)
    assert waitlist_offers_expire() == 1
    assert offer_mails(first) == []


# /events ----------------------------------------------------------------------------------------------------


def test_events_shows_the_offer_with_ik_kom_and_ik_kan_niet(client, full):
    event, participant, first, second = full
    event_leave(user=participant, event_id=event.pk)
    deadline = timezone.localtime(event.waitlist.get(user=first).offer_expires_at)
    client.force_login(first)
    page = client.get("/samen").content.decode()
    when = formats.date_format(deadline, "l j F, H:i")
    assert f"Er is een plek vrij bij Zondagduik: bevestig vóór {when}" in page
    assert f'action="/events/{event.pk}/ik-kom"' in page and ">Ik kom</button>" in page
    assert f'action="/events/{event.pk}/ik-kan-niet"' in page and ">Ik kan niet</button>" in page
    # The next one in line sees the waitlist, not the offer; the place counts as taken.
    client.force_login(second)
    page = client.get("/samen").content.decode()
    assert "Er is een plek vrij" not in page and "Ik kom" not in page
    assert "Je staat op de wachtlijst (plek 2)" in page and "· vol" in page


def test_posting_ik_kom_and_ik_kan_niet(client, full):
    event, participant, first, second = full
    event_leave(user=participant, event_id=event.pk)
    client.force_login(first)
    response = client.post(f"/events/{event.pk}/ik-kom", {"back": "events"}, follow=True)
    assert response.redirect_chain[-1][0] == "/samen"
    assert MESSAGE_OFFER_TAKEN in response.content.decode()
    assert event.participants.filter(user=first).exists()

    event_leave(user=first, event_id=event.pk)  # the place frees again: the offer goes to the second
    client.force_login(second)
    response = client.post(f"/events/{event.pk}/ik-kan-niet", {"back": "events"}, follow=True)
    assert MESSAGE_OFFER_DECLINED in response.content.decode()
    assert not event.waitlist.exists()


def test_ik_kom_too_late_says_so(client, full):
    event, participant, first, _second = full
    event_leave(user=participant, event_id=event.pk)
    expire(event, first)
    client.force_login(first)
    response = client.post(f"/events/{event.pk}/ik-kom", {"back": "events"}, follow=True)
    assert response.status_code == 200 and MESSAGE_OFFER_EXPIRED in response.content.decode()


def test_the_answers_refuse_get_and_anonymous(client, full):
    event = full[0]
    assert client.get(f"/events/{event.pk}/ik-kom").status_code in (302, 405)
    response = client.post(f"/events/{event.pk}/ik-kom")
    assert response.status_code == 302 and "/auth" in response["Location"]


# Races on PostgreSQL ---------------------------------------------------------------------------------------


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_twenty_parallel_accepts_leaves_declines_and_expiries_never_overfill():
    """Accepts (open, expired and not yet offered), leaves, declines, expiry runs and new sign-ups, all at
    once: never more participants than places, and never more participants plus open offers than places."""
    requires_postgresql()
    places = 5
    event = EventFactory(max_participants=places)
    participants = UserFactory.create_batch(places)
    for user in participants:
        EventParticipantFactory(event=event, user=user)
    queue = UserFactory.create_batch(12)
    for user in queue:
        event_sign_up(user=user, event_id=event.pk)
    for user in participants[:3]:
        event_leave(user=user, event_id=event.pk)  # three offers: queue[0..2]
    expire(event, queue[0])
    newcomers = UserFactory.create_batch(3)

    def act(i: int):
        if i < 3:
            return waitlist_offer_accept(user=queue[i], event_id=event.pk)  # one expired, two open
        if i < 5:
            return event_leave(user=participants[i], event_id=event.pk)  # two more places free
        if i < 10:
            return waitlist_offer_accept(user=queue[i - 2], event_id=event.pk)  # offered in the race, or not
        if i < 13:
            return waitlist_offers_expire()
        if i < 17:
            return waitlist_offer_decline(user=queue[i - 5], event_id=event.pk)  # queue[8..11]: may hold an offer
        return event_sign_up(user=newcomers[i - 17], event_id=event.pk)

    results = run_concurrently(act, times=20)

    unexpected = [r for r in results if isinstance(r, Exception) and not isinstance(r, EventError)]
    assert not unexpected, unexpected
    assert isinstance(results[0], OfferEnded)  # the expired offer
    taken = event.participants.count()
    open_offers = event.waitlist.filter(offer_expires_at__gt=timezone.now()).count()
    assert taken <= places and taken + open_offers <= places
    assert not event.participants.filter(user=queue[0]).exists()
    # Whatever the order, every freed place is taken or offered: none lost.
    assert taken + open_offers == places

    # A second wave: everyone still waiting taps Ik kom at once.
    still = list(event.waitlist.values_list("user_id", flat=True))
    users = {u.pk: u for u in [*queue, *newcomers]}
    results = run_concurrently(
        lambda i: waitlist_offer_accept(user=users[still[i % len(still)]], event_id=event.pk), times=20
    )
    assert not [r for r in results if isinstance(r, Exception) and not isinstance(r, EventError)], results
    assert event.participants.count() <= places
    assert event.participants.count() + event.waitlist.filter(offer_expires_at__gt=timezone.now()).count() == places


def test_an_account_deleted_with_an_open_offer_hands_the_place_on(full, admin_user, django_capture_on_commit_callbacks):
    from apps.accounts.removal import user_delete

    event, participant, first, second = full
    event_leave(user=participant, event_id=event.pk)
    with django_capture_on_commit_callbacks(execute=True):
        user_delete(actor=admin_user, user_id=first.pk)
    assert offered(event) == [second.pk] and offer_mails(second) == [Mail.Status.QUEUED]


@pytest.mark.parametrize("size", [1, 200])
def test_events_costs_a_fixed_number_of_queries_with_offers_and_guests(client, django_assert_max_num_queries, size):
    """/events with 200 participants plus 200 guests per event, open offers and a waitlist: the same budget as
    without (tests/events/test_events_page.py)."""
    from tests.factories import EventGuestFactory

    member = UserFactory()
    for _ in range(3):
        event = EventFactory(max_participants=2 * size + 1, open_for_guests=True)
        EventParticipantFactory.create_batch(size, event=event)
        EventGuestFactory.create_batch(size, event=event)
        leaving = EventParticipantFactory(event=event).user
        event_sign_up(user=member, event_id=event.pk)
        event_sign_up(user=UserFactory(), event_id=event.pk)
        event_leave(user=leaving, event_id=event.pk)  # the member gets the offer
    client.force_login(member)
    # The plan list (/samen): one query for every row's names, the afspraken beside the events, the history, the
    # calendar link and the form's spots.
    with django_assert_max_num_queries(11):
        response = client.get("/samen")
    html = response.content.decode()
    assert html.count(">Ik kom</button>") == 3
    assert html.count(f"{2 * size} / {2 * size + 1} deelnemers") == 3 and f"(waarvan {size} gast" in html
