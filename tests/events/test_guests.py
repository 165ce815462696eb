"""Guests: an event open for guests has a public link (a token) where someone without an account signs up with
a name, an address and the safety rules; guests share the event's places; the mail carries the link that
confirms the address (tests/events/test_guest_confirmation.py) and a cancel link; after the event the organiser
invites guests to the club; guests go 30 days after the event."""

import datetime
import io
import re
from dataclasses import replace

import pytest
from django.core.management import call_command
from django.test import Client, override_settings
from django.utils import timezone

from apps.events.models import Event, EventGuest
from apps.events.notices import event_cancelled_notify, event_changed_notify, guest_cancel_token
from apps.events.services import (
    MESSAGE_EMAIL_TOO_LONG,
    MESSAGE_GUEST_CANCELLED,
    MESSAGE_GUEST_DUPLICATE,
    MESSAGE_GUEST_FULL,
    MESSAGE_GUEST_SIGNED_UP,
    MESSAGE_GUESTS_NOT_YET,
    MESSAGE_NAME_TOO_LONG,
    MESSAGE_SAFETY_REQUIRED,
    SAFETY_TEXT,
    EventDetails,
    EventError,
    EventFull,
    event_cancel,
    event_leave,
    event_sign_up,
    event_update,
    guest_cancel,
    guest_confirm,
    guest_sign_up,
    guests_delete_old,
    guests_invite,
)
from apps.invitations.models import Invitation
from apps.notifications.models import Mail
from tests.concurrency import requires_postgresql, run_concurrently
from tests.factories import AdminFactory, EventFactory, EventGuestFactory, EventParticipantFactory, UserFactory
from tests.mailbox import run_worker, text_and_html

pytestmark = pytest.mark.django_db

GUEST = {"name": "Gijs Gast", "email": "gijs@example.nl", "safety_agreed": "on"}
SIGNED_UP = MESSAGE_GUEST_SIGNED_UP.format(minutes=30)


@pytest.fixture
def event():
    return EventFactory(title="Nieuwjaarsduik", max_participants=3, open_for_guests=True)


def url(event) -> str:
    return f"/events/gast/{event.guest_token}"


def html_of(response) -> str:
    return response.content.decode()


# The link ------------------------------------------------------------------------------------------------


def test_opening_an_event_for_guests_makes_its_link(event):
    assert event.guest_token and len(event.guest_token) >= 20
    closed = EventFactory()
    assert closed.guest_token is None
    closed.open_for_guests = True
    closed.save(update_fields=["open_for_guests"])
    closed.refresh_from_db()
    assert closed.guest_token


def test_the_page_shows_the_event_the_form_and_the_safety_rules(client, event):
    response = client.get(url(event))
    assert response.status_code == 200
    html = html_of(response)
    assert "Nieuwjaarsduik" in html and "Nog 3 plekken vrij" in html
    assert SAFETY_TEXT in html and 'name="safety_agreed"' in html and "csrfmiddlewaretoken" in html
    # A link shared in WhatsApp shows the event in its preview.
    assert '<meta property="og:title" content="Nieuwjaarsduik: doe mee als gast">' in html
    assert response["Cache-Control"] == "private, no-store" and response["X-Robots-Tag"] == "noindex"


def test_a_wrong_token_or_a_closed_event_is_a_404(client, event):
    assert client.get("/events/gast/" + "x" * 32).status_code == 404
    assert client.post("/events/gast/" + "x" * 32, GUEST).status_code == 404
    assert client.get("/events/gast/kort").status_code == 404
    event.open_for_guests = False
    event.save()
    assert client.get(url(event)).status_code == 404


def test_a_past_event_takes_no_guests(client, event):
    event.event_date = timezone.now() - datetime.timedelta(hours=1)
    event.save()
    html = html_of(client.get(url(event)))
    assert "Dit event is al voorbij." in html and 'name="safety_agreed"' not in html
    response = client.post(url(event), GUEST)
    assert response.status_code == 200 and not EventGuest.objects.exists()


# Signing up ---------------------------------------------------------------------------------------------


def test_a_guest_signs_up_with_a_normalised_address_and_gets_a_mail(client, event):
    response = client.post(url(event), {**GUEST, "name": "  Gijs   Gast ", "email": " GIJS@Example.NL "})
    assert response.status_code == 200 and SIGNED_UP in html_of(response)
    guest = EventGuest.objects.get()
    assert (guest.event, guest.name, guest.email) == (event, "Gijs Gast", "gijs@example.nl")
    assert guest.safety_agreed_at is not None
    assert guest.confirm_by is not None  # the place is held until the address is confirmed
    mail = Mail.objects.get(kind="guest_confirmation")
    assert (mail.to_email, mail.event_id, mail.guest_id, mail.user) == ("gijs@example.nl", event.pk, guest.pk, None)


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"name": ""}, "name", "Vul je naam in"),
        ({"name": "   "}, "name", "Vul je naam in"),
        ({"name": "x" * 151}, "name", MESSAGE_NAME_TOO_LONG),
        ({"email": ""}, "email", "Vul je e-mailadres in"),
        ({"email": "geen-adres"}, "email", "Vul een geldig e-mailadres in"),
        ({"email": "a" * 250 + "@example.nl"}, "email", MESSAGE_EMAIL_TOO_LONG),
        ({"safety_agreed": ""}, "safety_agreed", MESSAGE_SAFETY_REQUIRED),
    ],
)
def test_bad_input_gets_a_dutch_message_next_to_its_field(client, event, data, field, message):
    response = client.post(url(event), {**GUEST, **data})
    assert response.status_code == 200
    html = html_of(response)
    assert f'id="id_{field}_error"' in html and message in html
    assert not EventGuest.objects.exists() and not Mail.objects.exists()


def test_a_guest_twice_is_told(client, event):
    client.post(url(event), GUEST)
    # Still waiting for the confirmation: the same answer as the first time (a member's address gets it too).
    response = client.post(url(event), {**GUEST, "email": "GIJS@example.nl"})
    assert response.status_code == 200 and SIGNED_UP in html_of(response)
    guest_confirm(guest_id=EventGuest.objects.get().pk)
    response = client.post(url(event), {**GUEST, "email": "GIJS@example.nl"})
    assert response.status_code == 200 and MESSAGE_GUEST_DUPLICATE in html_of(response)
    assert EventGuest.objects.count() == 1


def test_the_form_needs_its_csrf_token(event):
    client = Client(enforce_csrf_checks=True)
    assert client.post(url(event), GUEST).status_code == 403
    assert not EventGuest.objects.exists()


@override_settings(ACCOUNT_RATE_LIMITS={"event_guest": "2/m/ip"})
def test_guest_sign_ups_are_rate_limited(client, event):
    for n in range(2):
        client.post(url(event), {**GUEST, "email": f"g{n}@example.nl"})
    response = client.post(url(event), {**GUEST, "email": "g3@example.nl"})
    assert response.status_code == 429 and "Wacht een minuut" in html_of(response)
    assert EventGuest.objects.count() == 2


# Shared places --------------------------------------------------------------------------------------------


def test_guests_take_places_and_members_then_wait(event, member_client, member):
    for n in range(2):
        guest_sign_up(token=event.guest_token, name=f"Gast {n}", email=f"g{n}@example.nl", safety_agreed=True)
    EventParticipantFactory(event=event)
    assert event_sign_up(user=member, event_id=event.pk).waitlist_position == 1
    with pytest.raises(EventFull) as refused:
        guest_sign_up(token=event.guest_token, name="Laat", email="laat@example.nl", safety_agreed=True)
    assert str(refused.value) == MESSAGE_GUEST_FULL
    html = html_of(member_client.get("/samen"))
    assert "3 / 3 deelnemers" in html and "(waarvan 2 gasten)" in html


def test_a_guest_never_jumps_the_waitlist(event):
    participants = EventParticipantFactory.create_batch(3, event=event)
    waiting = UserFactory()
    event_sign_up(user=waiting, event_id=event.pk)
    event_leave(user=participants[0].user, event_id=event.pk)  # the place is offered to the waiting member
    with pytest.raises(EventFull):
        guest_sign_up(token=event.guest_token, name="Gast", email="g@example.nl", safety_agreed=True)


def test_a_guest_cancelling_offers_the_place_to_the_waitlist(event):
    guest = guest_sign_up(token=event.guest_token, name="Gast", email="g@example.nl", safety_agreed=True)
    EventParticipantFactory.create_batch(2, event=event)
    waiting = UserFactory()
    event_sign_up(user=waiting, event_id=event.pk)
    assert guest_cancel(guest_id=guest.pk) is True
    assert event.waitlist.get(user=waiting).offer_expires_at is not None
    assert not Mail.objects.filter(guest_id=guest.pk).exists()  # the guest's mail went with them
    assert guest_cancel(guest_id=guest.pk) is False


@pytest.mark.concurrency
@pytest.mark.django_db(transaction=True)
def test_parallel_guests_and_members_never_overfill():
    requires_postgresql()
    event = EventFactory(max_participants=5, open_for_guests=True)
    members = UserFactory.create_batch(10)

    def act(i: int):
        if i % 2:
            return guest_sign_up(
                token=event.guest_token, name=f"Gast {i}", email=f"g{i}@example.nl", safety_agreed=True
            )
        return event_sign_up(user=members[i // 2], event_id=event.pk)

    results = run_concurrently(act, times=20)

    assert not [r for r in results if isinstance(r, Exception) and not isinstance(r, EventError)], results
    assert event.participants.count() + event.guests.count() == 5
    refused_guests = sum(isinstance(r, EventFull) for r in results)
    assert event.guests.count() == 10 - refused_guests
    assert event.waitlist.count() == 10 - event.participants.count()


# The mail and the cancel link ------------------------------------------------------------------------------


def test_the_confirmation_mail_carries_the_cancel_link_that_works(client, smtp_server, event):
    client.post(url(event), GUEST)
    run_worker()
    message = smtp_server.only()
    assert message["To"] == "gijs@example.nl"
    assert message["Subject"] == "Bevestig je aanmelding als gast: Nieuwjaarsduik"
    assert message["List-Unsubscribe"] is None
    text, html = text_and_html(message)
    assert text.startswith("Hallo,") and "Gijs" not in text and "Gijs" not in html  # greeted neutrally
    assert "als gast aangemeld voor Nieuwjaarsduik" in text and "/events/gast/bevestigen/" in text
    link = re.search(r"https://koudwater\.example(/events/gast/afmelden/\S+)", text).group(1)
    assert f'href="https://koudwater.example{link}"' in html

    page = client.get(link)  # a mail scanner following the link cancels nothing
    assert page.status_code == 200 and "Ja, meld me af" in html_of(page)
    assert EventGuest.objects.exists()
    response = client.post(link)
    assert response.status_code == 200 and MESSAGE_GUEST_CANCELLED in html_of(response)
    assert not EventGuest.objects.exists() and not Mail.objects.exists()
    assert client.get(link).status_code == 404


def test_a_wrong_or_tampered_cancel_link_is_a_404(client, event):
    guest = EventGuestFactory(event=event)
    token = guest_cancel_token(guest)
    assert client.get(f"/events/gast/afmelden/{token}").status_code == 200
    assert client.get(f"/events/gast/afmelden/{token[:-2]}xx").status_code == 404
    assert client.post(f"/events/gast/afmelden/{'a' * 40}").status_code == 404
    assert EventGuest.objects.exists()


def test_a_guest_cannot_cancel_after_the_event(client, event):
    guest = EventGuestFactory(event=event)
    event.event_date = timezone.now() - datetime.timedelta(hours=1)
    event.save()
    response = client.post(f"/events/gast/afmelden/{guest_cancel_token(guest)}")
    assert response.status_code == 200 and "Dit event is al voorbij." in html_of(response)
    assert EventGuest.objects.exists()


# After the event: invitations and removal ------------------------------------------------------------------


def _past(event):
    event.event_date = timezone.now() - datetime.timedelta(days=1)
    event.save()
    return event


def test_the_organiser_invites_guests_after_the_event(event):
    admin = AdminFactory()
    guests = EventGuestFactory.create_batch(2, event=event)
    with pytest.raises(EventError) as refused:
        guests_invite(guest_ids=[g.pk for g in guests], invited_by=admin)
    assert str(refused.value) == MESSAGE_GUESTS_NOT_YET
    _past(event)
    result = guests_invite(guest_ids=[g.pk for g in guests], invited_by=admin)
    assert (result.invited, result.skipped) == (2, 0)
    invitations = Invitation.objects.order_by("email")
    assert [i.email for i in invitations] == sorted(g.email for g in guests)
    assert all(i.invited_by == admin for i in invitations)
    assert set(EventGuest.objects.values_list("invitation_id", flat=True)) == {i.pk for i in invitations}
    again = guests_invite(guest_ids=[g.pk for g in guests], invited_by=admin)
    assert (again.invited, again.skipped) == (0, 2)


def test_only_an_admin_invites_guests(event):
    guest = EventGuestFactory(event=_past(event))
    with pytest.raises(EventError) as refused:
        guests_invite(guest_ids=[guest.pk], invited_by=UserFactory())
    assert str(refused.value) == "Alleen een admin kan gasten uitnodigen."
    assert not Invitation.objects.exists()


def test_the_invitation_mail_goes_out(smtp_server, event):
    guest = EventGuestFactory(event=_past(event), email="gast@example.nl")
    guests_invite(guest_ids=[guest.pk], invited_by=AdminFactory())
    run_worker()
    message = smtp_server.only()
    assert message["To"] == "gast@example.nl"
    assert message["Subject"] == "Je bent uitgenodigd voor de Koud water challenge"


def test_the_django_admin_action_invites_the_selected_guests(client, event):
    admin = AdminFactory()
    client.force_login(admin)
    guest = EventGuestFactory(event=_past(event))
    other = EventGuestFactory(event=event)
    response = client.post(
        "/django-admin/events/eventguest/",
        {"action": "invite", "_selected_action": [guest.pk]},
        follow=True,
    )
    assert response.status_code == 200 and "1 gast(en) uitgenodigd en gemaild; 0 overgeslagen." in html_of(response)
    assert Invitation.objects.get().email == guest.email
    other.refresh_from_db()
    assert other.invitation is None


def test_guests_go_30_days_after_the_event_unless_they_became_members():
    old = EventFactory(event_date=timezone.now() - datetime.timedelta(days=31), open_for_guests=True)
    recent = EventFactory(event_date=timezone.now() - datetime.timedelta(days=29), open_for_guests=True)
    gone = EventGuestFactory(event=old)
    Mail.objects.create(kind="guest_confirmation", to_email=gone.email, event_id=old.pk, guest_id=gone.pk)
    member_now = EventGuestFactory(event=old, email="lid.geworden@example.nl")
    UserFactory(email="Lid.Geworden@example.nl")
    kept = EventGuestFactory(event=recent)

    out = io.StringIO()
    call_command("delete_old_guests", stdout=out)
    assert out.getvalue().strip() == "1 gast(en) verwijderd."
    assert set(EventGuest.objects.values_list("pk", flat=True)) == {member_now.pk, kept.pk}
    assert not Mail.objects.exists()
    assert guests_delete_old() == 0
    later = (timezone.now() + datetime.timedelta(days=2)).isoformat()
    call_command("delete_old_guests", f"--now={later}", stdout=io.StringIO())
    assert set(EventGuest.objects.values_list("pk", flat=True)) == {member_now.pk}


# Query budgets ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [1, 200])
def test_the_guest_page_costs_a_fixed_number_of_queries(client, django_assert_max_num_queries, size):
    event = EventFactory(max_participants=1000, open_for_guests=True)
    EventParticipantFactory.create_batch(size, event=event)
    EventGuestFactory.create_batch(size, event=event)
    with django_assert_max_num_queries(3):
        response = client.get(url(event))
    assert response.status_code == 200 and f"Nog {1000 - 2 * size} plekken vrij" in html_of(response)


@override_settings(ACCOUNT_RATE_LIMITS={"event_guest": "1/m/ip"})
def test_cancel_attempts_are_rate_limited_too(client, event):
    guest = EventGuestFactory(event=event)
    link = f"/events/gast/afmelden/{guest_cancel_token(guest)}"
    client.post(url(event), {**GUEST, "email": "eerste@example.nl"})  # uses the one attempt
    response = client.post(link)
    assert response.status_code == 429 and "Wacht een minuut" in html_of(response)
    assert EventGuest.objects.filter(pk=guest.pk).exists()


def test_an_event_called_off_takes_no_guests(client, event):
    event.is_active = False
    event.save()
    html = html_of(client.get(url(event)))
    assert "Dit event gaat niet door of is niet meer beschikbaar." in html and 'name="safety_agreed"' not in html
    with pytest.raises(EventError):
        guest_sign_up(token=event.guest_token, name="Gast", email="g@example.nl", safety_agreed=True)


# A guest hears when their event moves or is afgelast --------------------------------------------------------


def _guest_of(event) -> EventGuest:
    guest = guest_sign_up(token=event.guest_token, name="Gijs Gast", email="gijs@example.nl", safety_agreed=True)
    guest_confirm(guest_id=guest.pk)  # an address not confirmed is told nothing
    Mail.objects.filter(kind="guest_confirmation").delete()  # the confirmation is tested above
    return guest


def _details_of(event, **changes) -> EventDetails:
    """The event's details as the organiser's form sends them, with `changes`."""
    details = {
        "title": event.title,
        "starts_at": event.event_date,
        "location": event.location,
        "max_participants": event.max_participants,
        "open_for_guests": True,
    }
    return EventDetails(**(details | changes))


def test_a_guest_hears_once_that_the_event_moved_with_the_cancel_link(client, smtp_server, event):
    _guest_of(event)
    member = EventParticipantFactory(event=event).user
    moved = _details_of(event, starts_at=event.event_date + datetime.timedelta(hours=1), location="De pier")
    change = event_update(event_id=event.pk, details=moved)
    event_update(event_id=event.pk, details=moved)  # the same change again (a double submit): told once
    event_update(event_id=event.pk, details=replace(moved, title="Andere titel"))  # no new time or place
    assert change.notified == 2  # the member and the guest
    assert Mail.objects.filter(kind="guest_event_changed").count() == 1
    run_worker()
    (message,) = [m for m in smtp_server.messages if m["To"] == "gijs@example.nl"]
    assert {m["To"] for m in smtp_server.messages} == {"gijs@example.nl", member.email}
    assert message["Subject"] == "Gewijzigd: Andere titel" and message["List-Unsubscribe"] is None
    text, html = text_and_html(message)
    assert text.startswith("Hallo,") and "Gijs" not in text  # no name the visitor typed
    assert "Waar: De pier" in text and "Waar: De pier" in html
    link = re.search(r"https://koudwater\.example(/events/gast/afmelden/\S+)", text).group(1)
    assert f'href="https://koudwater.example{link}"' in html
    assert client.post(link).status_code == 200 and not EventGuest.objects.exists()  # the link works


def test_a_second_move_is_a_new_change_and_told_again(event):
    _guest_of(event)
    event_update(event_id=event.pk, details=_details_of(event, location="De pier"))
    event_update(event_id=event.pk, details=_details_of(event, location="Het strand"))
    assert Mail.objects.filter(kind="guest_event_changed").count() == 2


def test_a_guest_hears_once_that_the_event_is_afgelast_with_the_reason(client, smtp_server, event):
    _guest_of(event)
    change = event_cancel(event_id=event.pk, reason="Storm op zee")
    with pytest.raises(EventError):
        event_cancel(event_id=event.pk, reason="Nog eens")
    event_cancelled_notify(event=Event.objects.get(pk=event.pk))  # told again (a retry): nothing new
    assert change.notified == 1
    assert Mail.objects.filter(kind="guest_event_cancelled").count() == 1
    run_worker()
    message = smtp_server.only()
    assert message["To"] == "gijs@example.nl" and message["Subject"] == "Afgelast: Nieuwjaarsduik"
    text, html = text_and_html(message)
    assert "gaat niet door: het is afgelast" in text and "Reden: Storm op zee" in text and "Reden: Storm op zee" in html
    link = re.search(r"https://koudwater\.example(/events/gast/afmelden/\S+)", text).group(1)
    assert client.post(link).status_code == 200 and not EventGuest.objects.exists()


def test_guests_of_a_past_or_deleted_event_are_not_told(event):
    _guest_of(event)
    event_cancelled_notify(event=event, deleted=True)
    assert not Mail.objects.exists()
    Event.objects.filter(pk=event.pk).update(event_date=timezone.now() - datetime.timedelta(hours=1))
    event.refresh_from_db()
    assert event_changed_notify(event=event, previous_date=event.event_date, previous_location="elders") == 0
    assert not Mail.objects.exists()
