"""/admin/events: the organiser's events. Nieuw event (one or a weekly series), Bewerken (one or this and the
following), Afgelasten, the lists with names and their CSV/Excel, Was erbij; a fixed number of queries at any
size (a series of 52 weeks, 200 participants)."""

import csv
import datetime
import io
import re
import zoneinfo

import openpyxl
import pytest
from django.contrib.messages import get_messages
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from apps.accounts.models import User
from apps.attendance.models import Attendance
from apps.challenges.models import Dip
from apps.events.links import guest_link_url
from apps.events.models import Event, EventGuest, EventParticipant, EventSeries, EventWaitlistEntry
from apps.events.services import MESSAGE_GUESTS_SKIPPED
from apps.invitations.models import Invitation
from apps.notifications.models import Mail
from tests.factories import (
    EventFactory,
    EventGuestFactory,
    EventParticipantFactory,
    EventWaitlistEntryFactory,
    UserChallengeFactory,
    UserFactory,
)
from tests.mailbox import run_worker

pytestmark = pytest.mark.django_db

AMSTERDAM = zoneinfo.ZoneInfo("Europe/Amsterdam")


def _messages(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def _form(day: datetime.date, **changes) -> dict:
    return {
        "title": "Zondagduik",
        "date": day.isoformat(),
        "time": "11:00",
        "location": "Strandpaviljoen 12",
        "description": "Iedere zondag om 11 uur.",
        "max_participants": "30",
    } | changes


def _next_sunday() -> datetime.date:
    today = timezone.localdate()
    return today + datetime.timedelta(days=(6 - today.weekday()) % 7 + 7)


def test_admin_page_links_to_the_events_section(admin_client):
    page = admin_client.get("/admin").content.decode()
    assert 'href="/admin/events/"' in page and 'href="/admin/events/nieuw"' in page


def test_new_event_without_a_repeat_makes_one(admin_client):
    response = admin_client.post("/admin/events/nieuw", _form(_next_sunday()))
    event = Event.objects.get()
    assert response["Location"] == f"/admin/events/{event.pk}"
    assert _messages(response) == ["Het event is aangemaakt."]
    assert timezone.localtime(event.event_date, AMSTERDAM).time() == datetime.time(11)
    assert event.max_participants == 30 and event.series is None


def test_new_event_with_herhaal_elke_week_tot_makes_a_series(admin_client):
    sunday = _next_sunday()
    until = sunday + datetime.timedelta(weeks=3, days=2)
    response = admin_client.post("/admin/events/nieuw", _form(sunday, repeat_until=until.isoformat()))
    assert Event.objects.count() == 4 and EventSeries.objects.count() == 1
    assert response.status_code == 302
    assert _messages(response)[0].startswith("De reeks is aangemaakt: 4 events, elke week tot en met ")


def test_open_voor_gasten_on_a_new_event_and_a_series_gives_each_a_guest_link(admin_client):
    form = admin_client.get("/admin/events/nieuw").content.decode()
    assert 'name="open_for_guests"' in form and "Open voor gasten" in form
    admin_client.post("/admin/events/nieuw", _form(_next_sunday(), open_for_guests="on"))
    event = Event.objects.get()
    assert event.open_for_guests and event.guest_token
    page = admin_client.get(f"/admin/events/{event.pk}").content.decode()
    link = guest_link_url(event, absolute=True)
    assert link.startswith("http") and f'id="guest-link" value="{link}" readonly' in page
    sunday = _next_sunday() + datetime.timedelta(weeks=1)
    admin_client.post(
        "/admin/events/nieuw",
        _form(sunday, open_for_guests="on", repeat_until=(sunday + datetime.timedelta(weeks=2)).isoformat()),
    )
    series = Event.objects.filter(series__isnull=False)
    tokens = list(series.values_list("guest_token", flat=True))
    assert len(tokens) == 3 and all(tokens) and len(set(tokens)) == 3  # bulk_create skips save(): set by the service


def test_bewerken_opens_and_closes_an_event_for_guests(admin_client):
    event = EventFactory(title="Zondagduik")
    day = timezone.localdate(event.event_date)
    page = admin_client.get(f"/admin/events/{event.pk}").content.decode()
    assert 'id="guest-link"' not in page and "Dit event is niet open voor gasten." in page
    admin_client.post(f"/admin/events/{event.pk}/bewerken", _form(day, open_for_guests="on"))
    event.refresh_from_db()
    assert event.open_for_guests and event.guest_token
    form = admin_client.get(f"/admin/events/{event.pk}/bewerken").content.decode()
    assert re.search(r'<input type="checkbox" name="open_for_guests"[^>]* checked', form)
    assert guest_link_url(event, absolute=True) in admin_client.get(f"/admin/events/{event.pk}").content.decode()
    admin_client.post(f"/admin/events/{event.pk}/bewerken", _form(day))
    event.refresh_from_db()
    assert not event.open_for_guests
    assert 'id="guest-link"' not in admin_client.get(f"/admin/events/{event.pk}").content.decode()
    assert admin_client.get(f"/events/gast/{event.guest_token}").status_code == 404  # the link is closed


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"title": ""}, "Dit veld is verplicht."),
        ({"time": "25:99"}, "Vul een geldige tijd in, zoals 11:00."),
        ({"max_participants": "0"}, "Het maximum is minstens 1"),
        ({"date": "2020-01-05"}, "Kies een datum en tijd in de toekomst."),
        ({"repeat_until": "2020-01-01"}, "Kies bij Herhaal elke week tot een datum op of na de eerste datum."),
    ],
)
def test_bad_input_on_nieuw_event_is_shown_in_dutch_on_the_form(admin_client, changes, message):
    response = admin_client.post("/admin/events/nieuw", _form(_next_sunday(), **changes))
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Event.objects.exists()


def test_editing_this_and_following_of_a_series_tells_who_signed_up(admin_client):
    sunday = _next_sunday()
    admin_client.post(
        "/admin/events/nieuw", _form(sunday, repeat_until=(sunday + datetime.timedelta(weeks=2)).isoformat())
    )
    first, second, third = Event.objects.order_by("event_date")
    member = UserFactory()
    EventParticipantFactory(event=third, user=member)
    page = admin_client.get(f"/admin/events/{second.pk}/bewerken").content.decode()
    assert "Dit event en de volgende van de reeks" in page and 'value="Zondagduik"' in page
    response = admin_client.post(
        f"/admin/events/{second.pk}/bewerken",
        _form(sunday + datetime.timedelta(weeks=1), time="10:00", location="De pier", scope="volgende"),
    )
    assert _messages(response) == [
        "2 events van de reeks zijn opgeslagen. 1 deelnemer(s), wachtenden en gasten krijgen bericht."
    ]
    hours = [timezone.localtime(event.event_date, AMSTERDAM).hour for event in Event.objects.order_by("event_date")]
    assert hours == [11, 10, 10]
    assert Mail.objects.get(kind="event_changed").user == member


def test_afgelasten_with_a_reason(admin_client):
    event = EventFactory(title="Maanduik")
    EventParticipantFactory(event=event)
    response = admin_client.post(f"/admin/events/{event.pk}/afgelasten", {"reason": "Storm op zee"})
    assert _messages(response) == ["Het event is afgelast. 1 deelnemer(s), wachtenden en gasten krijgen bericht."]
    page = admin_client.get(f"/admin/events/{event.pk}").content.decode()
    assert "Afgelast" in page and "Storm op zee" in page and "Afgelasten</button>" not in page
    again = admin_client.post(f"/admin/events/{event.pk}/afgelasten", {"reason": "Nog eens"})
    assert _messages(again)[-1] == "Dit event is al afgelast."
    empty = admin_client.post(f"/admin/events/{EventFactory().pk}/afgelasten", {"reason": " "})
    assert _messages(empty)[-1] == "Vul een reden in: die krijgen de deelnemers te lezen."


def test_the_event_page_lists_participants_and_waitlist_by_name(admin_client):
    event = EventFactory(max_participants=1)
    EventParticipantFactory(event=event, user=UserFactory(full_name="Petra Plek"))
    EventWaitlistEntryFactory(event=event, user=UserFactory(full_name="Wouter Wacht"))
    page = admin_client.get(f"/admin/events/{event.pk}").content.decode()
    assert "Deelnemers (1)" in page and "Petra Plek" in page
    assert "Wachtlijst (1)" in page and "Wouter Wacht" in page


def test_csv_and_excel_of_the_lists_neutralise_formulas(admin_client):
    event = EventFactory(max_participants=1)
    EventParticipantFactory(event=event, user=UserFactory(full_name="=HYPERLINK(1)", email="p@example.nl"))
    EventWaitlistEntryFactory(event=event, user=UserFactory(full_name="Wouter Wacht", email="w@example.nl"))
    response = admin_client.get(f"/admin/events/{event.pk}/deelnemers.csv")
    assert response["Content-Disposition"].startswith(f'attachment; filename="event-{event.pk}-')
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0] == ["Lijst", "Plek", "Naam", "Email", "Aangemeld op"]
    assert rows[1][:4] == ["Deelnemer", "1", "'=HYPERLINK(1)", "p@example.nl"]
    assert rows[2][:4] == ["Wachtlijst", "1", "Wouter Wacht", "w@example.nl"]
    sheet = openpyxl.load_workbook(io.BytesIO(admin_client.get(f"/admin/events/{event.pk}/deelnemers.xlsx").content))
    values = [[cell.value for cell in row][:4] for row in sheet.active.iter_rows(min_row=2)]
    assert values == [
        ["Deelnemer", 1, "=HYPERLINK(1)", "p@example.nl"],
        ["Wachtlijst", 1, "Wouter Wacht", "w@example.nl"],
    ]
    assert sheet.active["C2"].data_type == "s"  # text, never a formula


def test_the_event_page_and_the_lists_export_show_the_guests(admin_client):
    event = EventFactory(max_participants=5, open_for_guests=True)
    EventParticipantFactory(event=event, user=UserFactory(full_name="Petra Plek", email="p@example.nl"))
    EventGuestFactory(event=event, name="Gijs Gast", email="gijs@example.nl")
    page = admin_client.get(f"/admin/events/{event.pk}").content.decode()
    assert "Gasten (1)" in page and "Gijs Gast" in page and "gijs@example.nl" in page and "aangemeld op" in page
    assert 'name="gast"' not in page  # inviting comes after the event
    rows = list(
        csv.reader(
            io.StringIO(admin_client.get(f"/admin/events/{event.pk}/deelnemers.csv").content.decode("utf-8-sig"))
        )
    )
    assert [row[:4] for row in rows[1:]] == [
        ["Deelnemer", "1", "Petra Plek", "p@example.nl"],
        ["Gast", "1", "Gijs Gast", "gijs@example.nl"],
    ]
    sheet = openpyxl.load_workbook(io.BytesIO(admin_client.get(f"/admin/events/{event.pk}/deelnemers.xlsx").content))
    assert [cell.value for cell in sheet.active[3]][:4] == ["Gast", 1, "Gijs Gast", "gijs@example.nl"]


def _past_with_guests(*names: str) -> tuple[Event, list[EventGuest]]:
    event = EventFactory(title="Nieuwjaarsduik", event_date=timezone.now() - datetime.timedelta(days=1))
    guests = [
        EventGuestFactory(event=event, name=name, email=f"{name.split()[0].lower()}@example.nl") for name in names
    ]
    return event, guests


def test_after_the_event_the_organiser_invites_the_ticked_guests(admin_client, smtp_server):
    event, (gijs, greet, gerda) = _past_with_guests("Gijs Gast", "Greet Gast", "Gerda Gast")
    UserFactory(email="gerda@example.nl")  # Gerda became a member already
    page = admin_client.get(f"/admin/events/{event.pk}").content.decode()
    assert f'name="gast" value="{gijs.pk}"' in page and "Uitnodigen om lid te worden" in page
    response = admin_client.post(f"/admin/events/{event.pk}/gasten-uitnodigen", {"gast": [gijs.pk, gerda.pk]})
    assert response["Location"] == f"/admin/events/{event.pk}#gasten"
    assert _messages(response) == [
        "1 gast(en) uitgenodigd om lid te worden: ieder krijgt een e-mail met de uitnodiging.",
        "1 gast(en) overgeslagen: al uitgenodigd, al lid of er staat al een uitnodiging open.",
    ]
    assert Invitation.objects.filter(email="gijs@example.nl").count() == 1
    run_worker()
    mail = smtp_server.only()  # the invitation with its mail, to Gijs only
    assert mail["To"] == "gijs@example.nl" and mail["Subject"] == "Je bent uitgenodigd voor de Koud water challenge"
    assert not Invitation.objects.filter(email__in=["greet@example.nl", "gerda@example.nl"]).exists()
    page = admin_client.get(f"/admin/events/{event.pk}").content.decode()
    assert f'value="{gijs.pk}" id="gast-{gijs.pk}" disabled' in page and "· uitgenodigd" in page
    again = admin_client.post(f"/admin/events/{event.pk}/gasten-uitnodigen", {"gast": [gijs.pk]})
    assert _messages(again)[-1] == MESSAGE_GUESTS_SKIPPED.format(count=1)
    assert Invitation.objects.filter(email="gijs@example.nl").count() == 1


def test_inviting_guests_is_refused_in_dutch(admin_client):
    event, (gijs,) = _past_with_guests("Gijs Gast")
    other, (otto,) = _past_with_guests("Otto Gast")
    nothing = admin_client.post(f"/admin/events/{event.pk}/gasten-uitnodigen", {"gast": ["abc"]})
    assert _messages(nothing) == ["Kies eerst de gasten die je wilt uitnodigen."]
    elsewhere = admin_client.post(f"/admin/events/{event.pk}/gasten-uitnodigen", {"gast": [otto.pk]})
    assert _messages(elsewhere)[-1] == "Kies eerst de gasten die je wilt uitnodigen."  # another event's guest
    coming = EventFactory(open_for_guests=True)
    early = EventGuestFactory(event=coming)
    refused = admin_client.post(f"/admin/events/{coming.pk}/gasten-uitnodigen", {"gast": [early.pk]})
    assert _messages(refused)[-1] == "Gasten uitnodigen kan pas na het event."
    assert not Invitation.objects.exists()


def test_was_erbij_stamps_the_ticked_and_names_who_has_no_card(admin_client, admin_user):
    swim = EventFactory(title="Zondagduik", event_date=timezone.now() - datetime.timedelta(hours=2))
    with_card = UserFactory(full_name="Marit Zwemmer")
    UserChallengeFactory(user=with_card, started_at=timezone.now() - datetime.timedelta(days=5))
    without = UserFactory(full_name="Kees Zonderkaart")
    walk_in = UserFactory(full_name="Wim Binnenloper", email="wim@example.nl")
    UserChallengeFactory(user=walk_in, started_at=timezone.now() - datetime.timedelta(days=5))
    for member in (with_card, without):
        EventParticipantFactory(event=swim, user=member)
    page = admin_client.get(f"/admin/events/{swim.pk}").content.decode()
    assert "Aanwezigheid opslaan" in page and f'value="{with_card.pk}"' in page
    response = admin_client.post(
        f"/admin/events/{swim.pk}/aanwezig", {"aanwezig": [with_card.pk, without.pk], "lid": "wim@example.nl"}
    )
    assert response["Location"] == f"/admin/events/{swim.pk}#aanwezig"
    assert _messages(response) == [
        "De aanwezigheid is opgeslagen.",
        "Afgetekend op de kaart: Marit Zwemmer, Wim Binnenloper.",
        "Kees Zonderkaart heeft geen actieve challenge: er is niets afgetekend.",
    ]
    assert Dip.objects.filter(user__in=[with_card, walk_in]).count() == 2
    assert set(Attendance.objects.values_list("signed_off_by", flat=True)) == {admin_user.pk}
    # Saving again stamps nothing more; unticking Marit takes her dip back.
    admin_client.post(f"/admin/events/{swim.pk}/aanwezig", {"aanwezig": [with_card.pk, without.pk, walk_in.pk]})
    assert Dip.objects.count() == 2
    response = admin_client.post(f"/admin/events/{swim.pk}/aanwezig", {"aanwezig": [without.pk, walk_in.pk]})
    assert "Plons teruggenomen bij: Marit Zwemmer." in _messages(response)
    assert not Dip.objects.filter(user=with_card).exists()


def test_was_erbij_before_the_start_is_refused_in_dutch(admin_client):
    event = EventFactory()
    member = EventParticipantFactory(event=event).user
    response = admin_client.post(f"/admin/events/{event.pk}/aanwezig", {"aanwezig": [member.pk]})
    assert _messages(response)[0].startswith("Aftekenen kan vanaf de start van het event, ")
    assert (
        "Vanaf de start van het event vink je hier aan wie erbij was."
        in admin_client.get(f"/admin/events/{event.pk}").content.decode()
    )
    unknown = admin_client.post(f"/admin/events/{event.pk}/aanwezig", {"lid": "niemand@example.nl"})
    assert _messages(unknown)[-1] == "Geen lid gevonden met die naam of dat e-mailadres."


# --- a fixed number of queries ---------------------------------------------------------------------------------


def _queries(client, url: str) -> int:
    caches["pages"].clear()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return len(queries)


def _big_series(admin) -> Event:
    """A series of 52 weeks; its first event started an hour ago and has 200 participants, 50 waiting,
    200 ticked and 200 guests; the admin is on every list."""
    series = EventSeries.objects.create(repeat_until=timezone.localdate() + datetime.timedelta(weeks=51))
    start = timezone.now() - datetime.timedelta(hours=1)
    events = Event.objects.bulk_create(
        [
            Event(title=f"Zondagduik {week}", event_date=start + datetime.timedelta(weeks=week), series=series)
            for week in range(52)
        ]
    )
    members = User.objects.bulk_create([User(email=f"lid{n}@example.nl", full_name=f"Lid {n}") for n in range(250)])
    for event in events[:2]:
        EventParticipant.objects.bulk_create([EventParticipant(event=event, user=m) for m in members[:200]])
        EventWaitlistEntry.objects.bulk_create([EventWaitlistEntry(event=event, user=m) for m in members[200:]])
    Attendance.objects.bulk_create([Attendance(event=events[0], user=m, signed_off_by=admin) for m in members[:200]])
    EventGuest.objects.bulk_create(
        [
            EventGuest(event=events[0], name=f"Gast {n}", email=f"gast{n}@example.nl", safety_agreed_at=start)
            for n in range(200)
        ]
    )
    return events[0]


@pytest.mark.parametrize("page", ["/admin/events/", "/admin/events/?periode=voorbij", "detail", "csv", "xlsx"])
def test_the_organisers_pages_cost_the_same_queries_small_and_large(admin_client, admin_user, page):
    small = EventFactory(event_date=timezone.now() - datetime.timedelta(hours=1), open_for_guests=True)
    EventParticipantFactory(event=small)
    EventGuestFactory(event=small)
    EventParticipantFactory(event=EventFactory())  # one coming, one past: each list has a page to show
    # A small series with a past and a coming date: each list folds one (issue 34 §3).
    few_dates = EventSeries.objects.create(repeat_until=timezone.localdate() + datetime.timedelta(weeks=1))
    EventFactory(series=few_dates, event_date=timezone.now() - datetime.timedelta(days=6))
    EventFactory(series=few_dates, event_date=timezone.now() + datetime.timedelta(days=1))
    urls = {
        "detail": "/admin/events/{}",
        "csv": "/admin/events/{}/deelnemers.csv",
        "xlsx": "/admin/events/{}/deelnemers.xlsx",
    }
    url = urls.get(page, page)
    few = _queries(admin_client, url.format(small.pk))
    big = _big_series(admin_user)
    many = _queries(admin_client, url.format(big.pk))
    assert many == few, (page, few, many)
    assert many <= 14
