"""Issue 35: the public guest link. One visitor filled an event with invented guests, and a guest's name
("Gratis iPhone! Ga naar …") went out in the club's mail to a stranger's address. Now a sign-up holds its place
only for GUEST_CONFIRM_MINUTES until the link in the mail confirms the address (like a waitlist offer); the mail
carries none of the visitor's text; an organiser caps the guests per event; and a member's address gets the
same answer as any other while the member is told by mail."""

import datetime
import io
import re

import pytest
from django.core.management import call_command
from django.db.models import Q
from django.test import override_settings
from django.utils import timezone

from apps.events.models import EventGuest, guest_holds_place
from apps.events.notices import guest_confirm_token
from apps.events.refusals import EventRefusal
from apps.events.services import (
    MESSAGE_GUEST_ALREADY_CONFIRMED,
    MESSAGE_GUEST_CONFIRM_TOO_LATE,
    MESSAGE_GUEST_CONFIRMED,
    MESSAGE_GUEST_FULL,
    MESSAGE_GUEST_LIMIT,
    MESSAGE_GUEST_LINK_GONE,
    MESSAGE_GUEST_SIGNED_UP,
    EventDetails,
    EventError,
    GuestConfirmed,
    event_cancel,
    event_sign_up,
    event_update,
    guest_confirm,
    guest_holds_expire,
    guest_sign_up,
)
from apps.events.services.common import _free_places
from apps.events.services.organising import MESSAGE_GUEST_LIMIT_TOO_LOW
from apps.notifications.models import Mail
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import EventFactory, EventGuestFactory, EventParticipantFactory, UserFactory
from tests.mailbox import run_worker, text_and_html

pytestmark = pytest.mark.django_db

GUEST = {"name": "Gijs Gast", "email": "gijs@example.nl", "safety_agreed": "on"}
SIGNED_UP = MESSAGE_GUEST_SIGNED_UP.format(minutes=30)
SPAM = "Gratis iPhone! Ga naar https://evil.example"


@pytest.fixture
def event():
    return EventFactory(title="Nieuwjaarsduik", max_participants=3, open_for_guests=True)


def url(event) -> str:
    return f"/events/gast/{event.guest_token}"


def confirm_url(guest) -> str:
    return f"/events/gast/bevestigen/{guest_confirm_token(guest)}"


def html_of(response) -> str:
    return response.content.decode()


def sign_up(event, email="gijs@example.nl", name="Gijs Gast") -> EventGuest:
    return guest_sign_up(token=event.guest_token, name=name, email=email, safety_agreed=True)


def expire(guest) -> None:
    EventGuest.objects.filter(pk=guest.pk).update(confirm_by=timezone.now() - datetime.timedelta(minutes=1))


def held(event) -> int:
    return event.guests.filter(guest_holds_place(timezone.now())).count()


# The hold -----------------------------------------------------------------------------------------------------


def test_a_sign_up_holds_its_place_only_until_the_hold_runs_out(client, event):
    before = timezone.now()
    guest = sign_up(event)
    assert guest.confirm_by is not None
    assert before + datetime.timedelta(minutes=29) < guest.confirm_by <= timezone.now() + datetime.timedelta(minutes=30)
    assert _free_places(event) == 2 and "Nog 2 plekken vrij" in html_of(client.get(url(event)))
    expire(guest)
    # Past its hold the sign-up takes no place: not for the count, not for a member, not for the page.
    assert _free_places(event) == 3 and "Nog 3 plekken vrij" in html_of(client.get(url(event)))
    EventParticipantFactory.create_batch(2, event=event)
    assert event_sign_up(user=UserFactory(), event_id=event.pk).participant is not None


@override_settings(GUEST_CONFIRM_MINUTES=5)
def test_the_hold_is_a_setting_and_never_runs_past_the_start(event):
    guest = sign_up(event)
    assert guest.confirm_by <= timezone.now() + datetime.timedelta(minutes=5)
    soon = EventFactory(open_for_guests=True, event_date=timezone.now() + datetime.timedelta(minutes=2))
    assert sign_up(soon).confirm_by == soon.event_date


def test_the_link_confirms_and_a_second_tap_is_harmless(client, event):
    guest = sign_up(event)
    page = client.get(confirm_url(guest))  # a mail scanner following the link confirms nothing
    assert page.status_code == 200 and "Ja, ik doe mee" in html_of(page)
    assert page["Cache-Control"] == "private, no-store" and page["X-Robots-Tag"] == "noindex"
    assert EventGuest.objects.get().confirm_by is not None
    response = client.post(confirm_url(guest))
    assert response.status_code == 200 and MESSAGE_GUEST_CONFIRMED in html_of(response)
    assert "/events/gast/afmelden/" in html_of(response)  # the way out is right there
    assert EventGuest.objects.get().confirm_by is None
    again = client.post(confirm_url(guest))
    assert again.status_code == 200 and MESSAGE_GUEST_ALREADY_CONFIRMED in html_of(again)
    assert MESSAGE_GUEST_ALREADY_CONFIRMED in html_of(client.get(confirm_url(guest)))
    assert guest_confirm(guest_id=guest.pk) == GuestConfirmed.ALREADY
    assert EventGuest.objects.get().confirm_by is None


def test_a_late_confirmation_still_gets_a_place_that_is_free(client, event):
    guest = sign_up(event)
    expire(guest)
    response = client.post(confirm_url(guest))
    assert MESSAGE_GUEST_CONFIRMED in html_of(response) and EventGuest.objects.get().confirm_by is None


def test_a_late_confirmation_at_a_full_event_is_told_in_dutch(client, event):
    guest = sign_up(event)
    expire(guest)
    EventParticipantFactory.create_batch(3, event=event)
    response = client.post(confirm_url(guest))
    assert response.status_code == 200 and MESSAGE_GUEST_CONFIRM_TOO_LATE in html_of(response)
    assert EventGuest.objects.get().confirm_by is not None  # still not a guest's place
    with pytest.raises(EventError) as refused:
        guest_confirm(guest_id=guest.pk)
    assert refused.value.code == EventRefusal.GUEST_CONFIRM_TOO_LATE


def test_a_waiting_member_comes_before_a_late_confirmation(event):
    """The hold ran out while a member waited: the place is the member's offer, not the late guest's."""
    guest = sign_up(event)
    EventParticipantFactory.create_batch(2, event=event)
    waiting = UserFactory()
    assert event_sign_up(user=waiting, event_id=event.pk).waitlist_position == 1
    expire(guest)
    with pytest.raises(EventError) as refused:
        guest_confirm(guest_id=guest.pk)
    assert refused.value.code == EventRefusal.GUEST_CONFIRM_TOO_LATE
    assert event.waitlist.get(user=waiting).offer_expires_at is not None


def test_the_scheduled_run_clears_holds_and_offers_their_places_to_the_waitlist(client, event):
    guest = sign_up(event)
    kept = sign_up(event, email="blijft@example.nl")
    confirmed = sign_up(event, email="bevestigd@example.nl")
    guest_confirm(guest_id=confirmed.pk)
    waiting = UserFactory()
    assert event_sign_up(user=waiting, event_id=event.pk).waitlist_position == 1
    expire(guest)

    out = io.StringIO()
    call_command("send_scheduled_mail", stdout=out)
    assert "1 onbevestigde gastaanmelding(en) vervallen" in out.getvalue()
    assert set(EventGuest.objects.values_list("pk", flat=True)) == {kept.pk, confirmed.pk}
    assert not Mail.objects.filter(guest_id=guest.pk).exists()  # its mail went with it
    assert event.waitlist.get(user=waiting).offer_expires_at is not None  # not starved by the hold
    assert guest_holds_expire() == 0  # idempotent

    # The old link now says what happened and where to sign up again; a wrong link stays a 404.
    response = client.post(confirm_url(guest))
    assert response.status_code == 200 and MESSAGE_GUEST_LINK_GONE in html_of(response)
    assert f'href="{url(event)}"' in html_of(response)
    assert client.get(confirm_url(guest)[:-3] + "xyz").status_code == 404
    assert client.get("/events/gast/bevestigen/" + "a" * 40).status_code == 404


def test_an_address_whose_hold_ran_out_signs_up_again(client, event):
    guest = sign_up(event)
    again = client.post(url(event), GUEST)  # within the hold: the same answer, no second mail
    assert SIGNED_UP in html_of(again)
    assert Mail.objects.filter(kind="guest_confirmation").count() == 1
    expire(guest)
    response = client.post(url(event), GUEST)
    assert SIGNED_UP in html_of(response)
    fresh = EventGuest.objects.get()
    assert fresh.pk != guest.pk and fresh.confirm_by > timezone.now()
    assert Mail.objects.filter(kind="guest_confirmation", guest_id=fresh.pk).count() == 1


def test_only_confirmed_guests_are_listed_told_and_invited(admin_client, event):
    waiting = sign_up(event, name="Wacht Nog", email="wacht@example.nl")
    confirmed = sign_up(event, name="Bea Bevestigd", email="bea@example.nl")
    guest_confirm(guest_id=confirmed.pk)
    page = html_of(admin_client.get(f"/admin/events/{event.pk}"))
    assert "Bea Bevestigd" in page and "Wacht Nog" not in page and "Gasten (1)" in page
    Mail.objects.all().delete()
    details = EventDetails(
        title=event.title,
        starts_at=event.event_date + datetime.timedelta(hours=1),
        max_participants=3,
        open_for_guests=True,
    )
    event_update(event_id=event.pk, details=details)
    assert list(Mail.objects.filter(kind="guest_event_changed").values_list("guest_id", flat=True)) == [confirmed.pk]
    assert waiting.pk not in Mail.objects.values_list("guest_id", flat=True)


# No free text of the visitor's in any mail ------------------------------------------------------------------


def test_the_name_a_visitor_types_is_in_no_mail_the_club_sends(client, smtp_server, event):
    UserFactory(email="lid@example.nl", full_name="Lotte Lid")
    assert SIGNED_UP in html_of(client.post(url(event), {**GUEST, "name": SPAM, "email": "vreemde@example.nl"}))
    assert SIGNED_UP in html_of(client.post(url(event), {**GUEST, "name": SPAM, "email": "lid@example.nl"}))
    run_worker()
    (first,) = [m for m in smtp_server.messages if m["To"] == "vreemde@example.nl"]
    link = re.search(r"https://koudwater\.example(/events/gast/bevestigen/\S+)", text_and_html(first)[0]).group(1)
    assert MESSAGE_GUEST_CONFIRMED in html_of(client.post(link))
    # Mails later on about the same guest: the event moves, then it is afgelast.
    details = EventDetails(
        title=event.title, starts_at=event.event_date, location="De pier", max_participants=3, open_for_guests=True
    )
    event_update(event_id=event.pk, details=details)
    event_cancel(event_id=event.pk, reason="Storm op zee")
    run_worker()
    kinds = set(Mail.objects.values_list("kind", flat=True))
    assert {"guest_confirmation", "guest_link_member", "guest_event_changed", "guest_event_cancelled"} <= kinds
    assert len(smtp_server.messages) == 4
    for message in smtp_server.messages:
        text, html = text_and_html(message)
        for part in (message["Subject"], text, html):
            assert "iPhone" not in part and "evil.example" not in part, message["Subject"]


def test_the_confirmation_mail_holds_the_clubs_text_the_event_and_the_links(client, smtp_server, event):
    client.post(url(event), {**GUEST, "name": SPAM})
    run_worker()
    message = smtp_server.only()
    assert message["Subject"] == "Bevestig je aanmelding als gast: Nieuwjaarsduik"
    text, html = text_and_html(message)
    assert text.startswith("Hallo,\r\n") and "Nieuwjaarsduik" in text
    assert event.event_date.strftime("%Y") in text
    link = re.search(r"https://koudwater\.example(/events/gast/bevestigen/\S+)", text).group(1)
    assert f'href="https://koudwater.example{link}"' in html
    assert "Was jij het niet? Dan hoef je niets te doen" in text


# A member's address ------------------------------------------------------------------------------------------


def test_a_members_address_gets_the_same_answer_and_the_member_a_mail(client, smtp_server, event):
    member = UserFactory(email="lid@example.nl", full_name="Lotte Lid")
    stranger = client.post(url(event), {**GUEST, "email": "vreemde@example.nl"})
    as_member = client.post(url(event), {**GUEST, "email": "Lid@Example.nl"})
    assert as_member.status_code == stranger.status_code == 200
    assert SIGNED_UP in html_of(as_member)
    assert _answer(as_member) == _answer(stranger)
    # Both hold a place for the same time (the places left tell nothing either) ...
    assert "Nog 1 plek vrij" in html_of(client.get(url(event)))
    # ... and a second try answers the same again.
    assert _answer(client.post(url(event), {**GUEST, "email": "lid@example.nl"})) == _answer(stranger)
    assert _answer(client.post(url(event), {**GUEST, "email": "vreemde@example.nl"})) == _answer(stranger)

    hold = EventGuest.objects.get(email="lid@example.nl")
    assert hold.name == "" and hold.confirm_by is not None  # no guest of theirs: it can never be confirmed
    assert guest_confirm(guest_id=hold.pk) is None
    assert EventGuest.objects.get(pk=hold.pk).confirm_by is not None
    assert Mail.objects.filter(kind="guest_confirmation").values_list("to_email", flat=True).get() == (
        "vreemde@example.nl"
    )
    run_worker()
    (told,) = [m for m in smtp_server.messages if m["To"] == "lid@example.nl"]
    assert told["Subject"] == "Aanmelden voor Nieuwjaarsduik" and told["List-Unsubscribe"] is None
    text, html = text_and_html(told)
    assert "Hallo Lotte Lid" in text and "Iemand wilde je met dit e-mailadres als gast aanmelden" in text
    assert f"https://koudwater.example/events/{event.pk}" in text and "/events/gast/" not in text
    assert Mail.objects.filter(kind="guest_link_member", user=member).count() == 1  # once per event
    # When the hold ends the place is free again, as for any address not confirmed.
    expire(hold)
    guest_holds_expire()
    assert not EventGuest.objects.filter(email="lid@example.nl").exists()


def _answer(response) -> str:
    """The part of the page that answers the sign-up (the message and the form, without the CSRF token)."""
    html = html_of(response)
    section = html[html.index('id="guest-form-title"') :]
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", section)


# The organiser's cap on guests --------------------------------------------------------------------------------


def test_the_organiser_caps_the_guests_of_an_event(client, event):
    event.max_participants = 10
    event.guest_limit = 2
    event.save()
    assert "Nog 2 plekken vrij" in html_of(client.get(url(event)))
    first = sign_up(event, email="a@example.nl")
    sign_up(event, email="b@example.nl")
    response = client.post(url(event), {**GUEST, "email": "c@example.nl"})
    assert response.status_code == 200 and MESSAGE_GUEST_LIMIT in html_of(response)
    assert "Vol" in html_of(client.get(url(event))) and held(event) == 2
    with pytest.raises(EventError) as refused:
        sign_up(event, email="d@example.nl")
    assert refused.value.code == EventRefusal.GUEST_LIMIT_REACHED
    # A member still signs up: the cap is on guests only. A hold that ran out frees a guest's place.
    assert event_sign_up(user=UserFactory(), event_id=event.pk).participant is not None
    expire(first)
    assert sign_up(event, email="c@example.nl").confirm_by is not None


def test_the_cap_without_a_maximum_and_a_full_event_says_full(client):
    unlimited = EventFactory(open_for_guests=True, guest_limit=1)
    assert "Nog 1 plek vrij" in html_of(client.get(url(unlimited)))
    sign_up(unlimited)
    assert MESSAGE_GUEST_LIMIT in html_of(client.post(url(unlimited), {**GUEST, "email": "b@example.nl"}))
    full = EventFactory(open_for_guests=True, max_participants=1, guest_limit=5)
    EventParticipantFactory(event=full)
    assert MESSAGE_GUEST_FULL in html_of(client.post(url(full), GUEST))


def test_the_organiser_sets_the_cap_on_the_event_form(admin_client):
    day = timezone.localdate() + datetime.timedelta(days=7)
    form = {"title": "Zondagduik", "date": day.isoformat(), "time": "11:00", "open_for_guests": "on"}
    page = html_of(admin_client.get("/admin/events/nieuw"))
    assert 'name="guest_limit"' in page and "Maximum gasten" in page
    refused = admin_client.post("/admin/events/nieuw", form | {"guest_limit": "0"})
    assert refused.status_code == 200 and MESSAGE_GUEST_LIMIT_TOO_LOW in html_of(refused)
    assert "Vul een heel getal in." in html_of(admin_client.post("/admin/events/nieuw", form | {"guest_limit": "x"}))
    assert admin_client.post("/admin/events/nieuw", form | {"guest_limit": "4"}).status_code == 302
    from apps.events.models import Event

    event = Event.objects.get()
    assert event.guest_limit == 4
    edit = html_of(admin_client.get(f"/admin/events/{event.pk}/bewerken"))
    assert re.search(r'name="guest_limit" value="4"', edit)
    assert "Gasten (0 van hoogstens 4)" in html_of(admin_client.get(f"/admin/events/{event.pk}"))
    admin_client.post(f"/admin/events/{event.pk}/bewerken", form | {"guest_limit": ""})
    event.refresh_from_db()
    assert event.guest_limit is None


def test_the_service_refuses_a_cap_below_one():
    details = EventDetails(title="Duik", starts_at=timezone.now() + datetime.timedelta(days=1), guest_limit=0)
    with pytest.raises(EventError) as refused:
        details.check(now=timezone.now())
    assert refused.value.code == EventRefusal.GUEST_LIMIT_TOO_LOW


# Under load: the places hold ---------------------------------------------------------------------------------


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_parallel_sign_ups_confirmations_and_expiry_never_overfill():
    """Late confirmations, new sign-ups, members and the scheduled clean-up, all at once: the places and the cap
    on guests hold, and every refusal is a clear one."""
    requires_postgresql()
    event = EventFactory(max_participants=6, guest_limit=4, open_for_guests=True)
    late = [
        EventGuestFactory(
            event=event, email=f"laat{i}@example.nl", confirm_by=timezone.now() - datetime.timedelta(minutes=1)
        )
        for i in range(6)
    ]
    members = UserFactory.create_batch(4)

    def act(i: int):
        if i < 6:
            return guest_confirm(guest_id=late[i].pk)
        if i < 14:
            return sign_up(event, email=f"nieuw{i}@example.nl")
        if i < 18:
            return event_sign_up(user=members[i - 14], event_id=event.pk)
        return guest_holds_expire()

    results = run_concurrently(act, times=20)

    assert not [r for r in results if isinstance(r, Exception) and not isinstance(r, EventError)], results
    now = timezone.now()
    guests = event.guests.filter(guest_holds_place(now)).count()
    offers = event.waitlist.filter(offer_expires_at__gt=now).count()
    assert guests <= 4
    assert event.participants.count() + guests + offers <= 6
    assert event.guests.filter(confirm_by__isnull=True).count() == sum(r == GuestConfirmed.CONFIRMED for r in results)
    assert not event.guests.filter(Q(confirm_by__isnull=False) & Q(confirm_by__lte=now - datetime.timedelta(hours=1)))
