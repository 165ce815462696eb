import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from apps.events.models import Event, EventParticipant
from tests.factories import EventFactory, EventParticipantFactory, UserFactory

pytestmark = pytest.mark.django_db

CHANGELIST = reverse("admin:events_event_changelist")
PARTICIPANTS = reverse("admin:events_eventparticipant_changelist")

# The waitlist inline is read-only, but the admin's change form still posts its (empty) formset.
WAITLIST_MANAGEMENT_FORM = {
    "waitlist-TOTAL_FORMS": "0",
    "waitlist-INITIAL_FORMS": "0",
    "waitlist-MIN_NUM_FORMS": "0",
    "waitlist-MAX_NUM_FORMS": "1000",
}


def change_url(event) -> str:
    return reverse("admin:events_event_change", args=[event.pk])


def queries_for(client, url) -> int:
    client.get(url)  # warm caches (content types, session) so only the page's own queries are counted
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    return len(captured)


def test_changelist_shows_the_count_column(admin_client):
    event = EventFactory(title="Nieuwjaarsduik", max_participants=10)
    EventParticipantFactory.create_batch(3, event=event)
    EventParticipantFactory.create_batch(2, event=EventFactory(max_participants=None))

    response = admin_client.get(CHANGELIST)

    html = response.content.decode()
    assert response.status_code == 200
    assert "Nieuwjaarsduik" in html
    assert 'class="field-participant_count">3 / 10</td>' in html
    assert 'class="field-participant_count">2</td>' in html  # no maximum
    assert "Deelnemers<" in html  # the column header


def test_change_page_lists_participants_with_name_email_and_time(admin_client):
    event = EventFactory()
    EventParticipantFactory(event=event, user=UserFactory(full_name="Sanne Schaats", email="sanne@example.nl"))

    html = admin_client.get(change_url(event)).content.decode()

    assert "Sanne Schaats" in html
    assert "sanne@example.nl" in html
    for heading in ["Naam", "E-mailadres", "Aangemeld op"]:
        assert heading in html


def test_changelist_and_change_page_cost_a_fixed_number_of_queries(admin_client):
    small = EventFactory()
    EventParticipantFactory(event=small)
    pages = [CHANGELIST, change_url(small), PARTICIPANTS]
    before = [queries_for(admin_client, url) for url in pages]

    people = UserFactory.create_batch(40)
    events = EventFactory.create_batch(60)
    EventParticipant.objects.bulk_create([EventParticipant(event=e, user=p) for e in events for p in people])
    pages[1] = change_url(events[0])  # 40 participants in its inline
    after = [queries_for(admin_client, url) for url in pages]

    # Measured: 8 (event list), 5 (change page), 7 (participant list), with 1 or 2400 participations.
    assert before == after, (before, after)
    assert all(count <= 10 for count in after), after


def test_admin_creates_an_event(admin_client):
    response = admin_client.post(
        reverse("admin:events_event_add"),
        {
            "title": "Ijsbeer-duik",
            "event_date_0": "2099-01-01",
            "event_date_1": "12:00:00",
            "location": "Scheveningen",
            "description": "Gelukkig nieuwjaar!",
            "max_participants": "25",
            "is_active": "on",
            "participants-TOTAL_FORMS": "0",
            "participants-INITIAL_FORMS": "0",
            "participants-MIN_NUM_FORMS": "0",
            "participants-MAX_NUM_FORMS": "1000",
            **WAITLIST_MANAGEMENT_FORM,
        },
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    event = Event.objects.get(title="Ijsbeer-duik")
    assert timezone.localtime(event.event_date).hour == 12
    assert event.max_participants == 25 and event.is_active


def test_admin_edits_and_deactivates_an_event_keeping_participants(admin_client):
    event = EventFactory(title="Oud", max_participants=5)
    participation = EventParticipantFactory(event=event)
    local = timezone.localtime(event.event_date)

    response = admin_client.post(
        change_url(event),
        {
            "title": "Nieuw",
            "event_date_0": local.strftime("%Y-%m-%d"),
            "event_date_1": local.strftime("%H:%M:%S"),
            "location": event.location,
            "description": event.description,
            "max_participants": "6",
            # is_active left out: unchecked
            "participants-TOTAL_FORMS": "1",
            "participants-INITIAL_FORMS": "1",
            "participants-MIN_NUM_FORMS": "0",
            "participants-MAX_NUM_FORMS": "1000",
            **WAITLIST_MANAGEMENT_FORM,
            "participants-0-id": str(participation.pk),
            "participants-0-event": str(event.pk),
        },
    )

    assert response.status_code == 302, response.content.decode()[:2000]
    event.refresh_from_db()
    assert (event.title, event.max_participants, event.is_active) == ("Nieuw", 6, False)
    assert event.participants.count() == 1


def test_the_deactivate_action(admin_client):
    chosen, kept = EventFactory(), EventFactory()
    EventParticipantFactory(event=chosen)

    response = admin_client.post(CHANGELIST, {"action": "deactivate", "_selected_action": [chosen.pk]}, follow=True)

    assert "1 event(s) gedeactiveerd." in response.content.decode()
    chosen.refresh_from_db()
    kept.refresh_from_db()
    assert not chosen.is_active and kept.is_active
    assert chosen.participants.count() == 1


def test_the_inline_can_remove_a_participant_but_not_add_one_past_the_service(admin_client):
    event = EventFactory(max_participants=1)
    participation = EventParticipantFactory(event=event)
    html = admin_client.get(change_url(event)).content.decode()
    assert "participants-0-DELETE" in html
    assert "Nog een deelnemer toevoegen" not in html and "add-row" not in html
    listing = admin_client.get(reverse("admin:events_eventparticipant_changelist"))
    assert listing.status_code == 200 and participation.user.email in listing.content.decode()


def test_the_period_filter(admin_client):
    EventFactory(title="Komt nog")
    EventFactory(title="Was al", event_date=timezone.now() - timezone.timedelta(days=3))
    upcoming = admin_client.get(CHANGELIST + "?periode=komend").content.decode()
    past = admin_client.get(CHANGELIST + "?periode=voorbij").content.decode()
    assert "Komt nog" in upcoming and "Was al" not in upcoming
    assert "Was al" in past and "Komt nog" not in past


@pytest.mark.parametrize("url", [CHANGELIST, reverse("admin:events_event_add")])
def test_members_and_anonymous_are_kept_out(client, member_client, url):
    assert member_client.get(url).status_code == 302
    member_client.logout()
    assert client.get(url).status_code == 302


def participant_add(client, event, user):
    return client.post(
        reverse("admin:events_eventparticipant_add"), {"event": str(event.pk), "user": str(user.pk)}, follow=True
    )


def test_admin_signs_a_member_up_through_the_service(admin_client, member):
    event = EventFactory(max_participants=2)

    assert admin_client.get(reverse("admin:events_eventparticipant_add")).status_code == 200
    response = participant_add(admin_client, event, member)

    assert response.status_code == 200
    assert list(event.participants.values_list("user_id", flat=True)) == [member.pk]


@pytest.mark.parametrize(
    ("event_kwargs", "message"),
    [
        ({"max_participants": 1}, "Dit event is vol."),
        ({"event_date": timezone.now() - timezone.timedelta(days=1)}, "Dit event is al voorbij."),
        ({"is_active": False}, "Dit event gaat niet door of is niet meer beschikbaar."),
    ],
    ids=["full", "past", "inactive"],
)
def test_admin_sign_up_obeys_the_same_rules(admin_client, member, event_kwargs, message):
    event = EventFactory(**event_kwargs)
    if event.max_participants:
        EventParticipantFactory(event=event)

    response = participant_add(admin_client, event, member)

    assert message in response.content.decode()
    assert not event.participants.filter(user=member).exists()


def test_admin_duplicate_sign_up_is_a_form_error(admin_client, member):
    event = EventFactory()
    EventParticipantFactory(event=event, user=member)

    response = participant_add(admin_client, event, member)

    assert "Je bent al aangemeld voor dit event" in response.content.decode()
    assert event.participants.count() == 1


def test_a_sign_up_can_be_viewed_but_not_changed(admin_client):
    participation = EventParticipantFactory()
    url = reverse("admin:events_eventparticipant_change", args=[participation.pk])
    response = admin_client.get(url)
    assert response.status_code == 200
    assert participation.user.email in response.content.decode()
    assert 'name="_save"' not in response.content.decode()


# --- taking someone off the list goes through event_leave ----------------------------------------------


@pytest.fixture
def leave_calls(monkeypatch):
    # The event screen's inline (admin/events.py) and the sign-up screen (admin/signups.py) each call it.
    from apps.events.admin import events, signups

    calls = []
    real = events.event_leave
    for module in (events, signups):
        monkeypatch.setattr(module, "event_leave", lambda **kw: calls.append(kw["event_id"]) or real(**kw))
    return calls


def inline_delete_form(event, participation) -> dict:
    local = timezone.localtime(event.event_date)
    return {
        "title": event.title,
        "event_date_0": local.strftime("%Y-%m-%d"),
        "event_date_1": local.strftime("%H:%M:%S"),
        "location": event.location,
        "description": event.description,
        "max_participants": str(event.max_participants or ""),
        "is_active": "on",
        "participants-TOTAL_FORMS": "1",
        "participants-INITIAL_FORMS": "1",
        "participants-MIN_NUM_FORMS": "0",
        "participants-MAX_NUM_FORMS": "1000",
        "participants-0-id": str(participation.pk),
        "participants-0-event": str(event.pk),
        "participants-0-DELETE": "on",
        **WAITLIST_MANAGEMENT_FORM,
    }


def test_removing_a_participant_in_the_inline_goes_through_event_leave(admin_client, leave_calls):
    event = EventFactory(max_participants=3)
    participation = EventParticipantFactory(event=event)
    response = admin_client.post(change_url(event), inline_delete_form(event, participation))
    assert response.status_code == 302, response.content.decode()[:2000]
    assert leave_calls == [event.pk]
    assert not event.participants.exists()


def test_the_inline_keeps_the_list_of_a_past_event(admin_client, leave_calls):
    event = EventFactory(event_date=timezone.now() - timezone.timedelta(days=2))
    participation = EventParticipantFactory(event=event)
    response = admin_client.post(change_url(event), inline_delete_form(event, participation))
    assert response.status_code == 200
    assert "Dit event is al voorbij." in response.content.decode()
    assert leave_calls == [] and event.participants.count() == 1


def test_removing_a_sign_up_on_its_own_screen_goes_through_event_leave(admin_client, leave_calls):
    event = EventFactory()
    participation = EventParticipantFactory(event=event)
    url = reverse("admin:events_eventparticipant_delete", args=[participation.pk])
    assert admin_client.post(url, {"post": "yes"}).status_code == 302
    assert leave_calls == [event.pk] and not event.participants.exists()


def test_a_sign_up_for_a_past_event_is_not_removed_on_its_own_screen(admin_client, leave_calls):
    event = EventFactory(event_date=timezone.now() - timezone.timedelta(days=2))
    participation = EventParticipantFactory(event=event)
    url = reverse("admin:events_eventparticipant_delete", args=[participation.pk])
    assert "Dit event is al voorbij." in admin_client.get(url).content.decode()
    assert admin_client.post(url, {"post": "yes"}).status_code == 403
    assert leave_calls == [] and event.participants.count() == 1


# The waitlist in the Django admin -------------------------------------------------------------------------


def test_raising_the_maximum_in_the_admin_offers_the_places_to_the_waitlist_in_order(admin_client):
    from apps.events.services import event_sign_up
    from apps.notifications.models import Mail

    event = EventFactory(title="Vol", max_participants=1)
    EventParticipantFactory(event=event)
    waiting = UserFactory.create_batch(3)
    for user in waiting:
        event_sign_up(user=user, event_id=event.pk)
    local = timezone.localtime(event.event_date)

    response = admin_client.post(
        change_url(event),
        {
            "title": event.title,
            "event_date_0": local.strftime("%Y-%m-%d"),
            "event_date_1": local.strftime("%H:%M:%S"),
            "location": event.location,
            "description": event.description,
            "max_participants": "3",
            "is_active": "on",
            "participants-TOTAL_FORMS": "0",
            "participants-INITIAL_FORMS": "0",
            "participants-MIN_NUM_FORMS": "0",
            "participants-MAX_NUM_FORMS": "1000",
            **WAITLIST_MANAGEMENT_FORM,
        },
        follow=True,
    )

    assert response.status_code == 200
    assert "2 plek(ken) aangeboden aan de wachtlijst en gemaild." in response.content.decode()
    offered = event.waitlist.filter(offer_expires_at__isnull=False).values_list("user_id", flat=True)
    assert set(offered) == {waiting[0].pk, waiting[1].pk}
    assert list(event.waitlist.filter(offer_expires_at__isnull=True).values_list("user_id", flat=True)) == [
        waiting[2].pk
    ]
    assert Mail.objects.filter(kind="waitlist_offer").count() == 2


def test_the_change_page_shows_the_waitlist_in_order(admin_client):
    from apps.events.services import event_sign_up

    event = EventFactory(max_participants=1)
    EventParticipantFactory(event=event)
    names = ["Eerste Wachter", "Tweede Wachter", "Derde Wachter"]
    for name in names:
        event_sign_up(user=UserFactory(full_name=name), event_id=event.pk)

    html = admin_client.get(change_url(event)).content.decode()

    waitlist = html[html.index("Wachtlijst (op volgorde)") :]
    assert [waitlist.index(name) for name in names] == sorted(waitlist.index(name) for name in names)
    assert re.findall(r'class="field-position">\s*<p>(\d+)</p>', waitlist) == ["1", "2", "3"]


def test_the_change_page_shows_the_guest_link_and_the_way_to_the_guests(admin_client):
    from apps.events.links import guest_link_url
    from tests.factories import EventGuestFactory

    event = EventFactory(open_for_guests=True)
    EventGuestFactory.create_batch(2, event=event)
    html = admin_client.get(change_url(event)).content.decode()
    assert guest_link_url(event, absolute=True) in html
    assert f"/django-admin/events/eventguest/?event__id__exact={event.pk}" in html and "2 gast(en) bekijken" in html
    closed = EventFactory()
    assert "Zet &#x27;open voor gasten&#x27; aan en sla op" in admin_client.get(change_url(closed)).content.decode()
