"""Issue 17.13: texts, the Django admin's Dutch names, /favicon.ico and the focus after switching /auth tabs."""

import re

import pytest
from django.contrib.messages import get_messages
from django.contrib.staticfiles import finders
from django.template.loader import render_to_string
from django.utils import timezone
from django.utils.html import strip_tags

from apps.events.models import Event

pytestmark = pytest.mark.django_db


def test_the_password_changed_message_is_one_dutch_word():
    # allauth's Dutch translation says 'Wachtwoord wijziging geslaagd.'; our template overrides it.
    assert render_to_string("account/messages/password_changed.txt").strip() == "Wachtwoordwijziging geslaagd."


def test_the_django_admin_says_het_event_after_adding_an_event(admin_client):
    response = admin_client.post(
        "/django-admin/events/event/add/",
        {
            "title": "Nieuwjaarsduik",
            "event_date_0": timezone.localdate().isoformat(),
            "event_date_1": "12:00:00",
            "location": "Strand",
            "description": "",
            "max_participants": "",
            "is_active": "on",
            "created_at_0": timezone.localdate().isoformat(),
            "created_at_1": "10:00:00",
            "participants-TOTAL_FORMS": "0",
            "participants-INITIAL_FORMS": "0",
            "waitlist-TOTAL_FORMS": "0",
            "waitlist-INITIAL_FORMS": "0",
        },
        follow=True,
    )
    assert Event.objects.filter(title="Nieuwjaarsduik").exists(), response.content.decode()[:2000]
    said = [strip_tags(str(message)) for message in get_messages(response.wsgi_request)]
    assert said == ["Het event ‘Nieuwjaarsduik’ is met succes toegevoegd."]


def test_the_django_admin_index_has_no_two_headings_with_one_name(admin_client):
    html = admin_client.get("/django-admin/").content.decode()
    headings = [h.strip().lower() for h in re.findall(r'<caption>\s*<a [^>]*class="section"[^>]*>([^<]+)</a>', html)]
    assert headings, html[:500]
    assert len(headings) == len(set(headings)), headings
    assert "gebruikers" in headings


def test_favicon_ico_leads_to_a_real_icon(client):
    response = client.get("/favicon.ico")
    assert (response.status_code, response["Location"]) == (302, "/static/favicon.ico")
    path = finders.find("favicon.ico")
    with open(path, "rb") as icon:
        assert icon.read(4) == b"\x00\x00\x01\x00"  # the ICO header


@pytest.mark.parametrize(("tab", "first_field"), [("inloggen", "login"), ("registreren", "code")])
def test_switching_auth_tabs_lands_the_keyboard_on_the_first_field(client, tab, first_field):
    html = client.get("/auth").content.decode()
    link = re.search(rf'<a class="tab" href="([^"]+)"[^>]*>{tab.capitalize()}</a>', html).group(1)
    switched = client.get(link.replace("&amp;", "&")).content.decode()
    autofocused = re.findall(r'<input [^>]*name="(\w+)"[^>]*autofocus|<input [^>]*autofocus[^>]*name="(\w+)"', switched)
    assert [a or b for a, b in autofocused] == [first_field]


def test_the_auth_page_opened_directly_steals_no_focus(client):
    assert "autofocus" not in client.get("/auth").content.decode()
