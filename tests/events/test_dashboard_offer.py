"""Issue 34 §6: an open waitlist offer shows on the dashboard, at the top, with Ik kom / Ik kan niet and its
deadline, not only on /events; the section costs one query at any number of offers."""

import datetime

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import dateformat, timezone

from apps.events.services import event_leave, event_sign_up
from tests.factories import EventFactory, EventParticipantFactory

pytestmark = pytest.mark.django_db


def offer_for(member, *, title: str = "Zondagduik", days: int = 3):
    event = EventFactory(title=title, max_participants=1, event_date=timezone.now() + datetime.timedelta(days=days))
    leaving = EventParticipantFactory(event=event).user
    event_sign_up(user=member, event_id=event.pk)
    event_leave(user=leaving, event_id=event.pk)  # the freed place is offered to her
    return event, event.waitlist.get(user=member)


def offer_section(html: str) -> str:
    part = html[html.index('id="plek-vrij"') :]
    return part[: part.index("</section>")]


def test_the_dashboard_shows_the_offer_with_its_buttons_and_deadline_at_the_top(member_client, member):
    assert 'id="plek-vrij"' not in member_client.get("/dashboard").content.decode()
    event, entry = offer_for(member)
    html = member_client.get("/dashboard").content.decode()  # the cached page moved with the offer
    block = offer_section(html)
    deadline = dateformat.format(timezone.localtime(entry.offer_expires_at), "l j F, H:i")
    assert f"Er is een plek vrij bij Zondagduik: bevestig vóór {deadline}" in block
    assert f'action="/events/{event.pk}/ik-kom"' in block and f'action="/events/{event.pk}/ik-kan-niet"' in block
    assert "Ik kom" in block and "Ik kan niet" in block
    assert html.index('id="plek-vrij"') < html.index("Je actieve challenge(s)")


def test_ik_kom_from_the_dashboard_takes_the_place_and_the_block_goes(member_client, member):
    event, _entry = offer_for(member)
    response = member_client.post(f"/events/{event.pk}/ik-kom", {"back": "dashboard"}, follow=True)
    assert response.redirect_chain[-1][0].startswith("/dashboard")
    assert event.participants.filter(user=member).exists()
    assert 'id="plek-vrij"' not in response.content.decode()


def test_an_expired_offer_is_not_shown(member_client, member):
    _event, entry = offer_for(member)
    entry.offer_expires_at = timezone.now() - datetime.timedelta(minutes=1)
    entry.save(update_fields=["offer_expires_at"])
    cache.clear()
    assert 'id="plek-vrij"' not in member_client.get("/dashboard").content.decode()


def test_the_offers_cost_the_same_queries_with_one_or_five(member_client, member):
    def queries() -> int:
        member_client.get("/dashboard")
        cache.clear()  # count the rendering, not the cached page
        with CaptureQueriesContext(connection) as captured:
            html = member_client.get("/dashboard").content.decode()
        return len(captured), offer_section(html).count("Ik kom")

    offer_for(member, title="Eerste")
    one = queries()
    for index in range(4):
        offer_for(member, title=f"Meer {index}", days=4 + index)
    five = queries()
    assert one[1] == 1 and five[1] == 5 and one[0] == five[0]
