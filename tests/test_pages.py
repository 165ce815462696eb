import logging
import re
from unittest import mock

import pytest
from django.apps import apps
from django.urls import reverse

from tests.pwa import without_sw_registration

pytestmark = pytest.mark.django_db

LANDING_SECTIONS = [
    "Koudwater zwem challenge",
    "Begin je IJSKOUDE avontuur",
    "Hoe het werkt",
    "Verzamel prachtige badges",
    "Durf de KOU te trotseren!",
    "Klaar voor de uitdaging?",
    "© 20",  # the footer, with this year
]


def test_landing_page_has_every_section_in_order(client):
    response = client.get("/")
    assert response.status_code == 200
    text_only = " ".join(re.sub(r"<[^>]+>", "", response.content.decode()).split())
    positions = [text_only.find(text) for text in LANDING_SECTIONS]
    assert -1 not in positions, dict(zip(LANDING_SECTIONS, positions, strict=True))
    assert positions == sorted(positions)


def test_landing_page_buttons_lead_to_auth(client):
    html = client.get("/").content.decode()
    for label in ["Start nu", "Inloggen", "Begin nu gratis"]:
        assert re.search(rf'<a [^>]*href="/auth"[^>]*>\s*{label}\s*</a>', html), label


def test_landing_page_shows_all_six_badges_and_the_24_hour_rule(client):
    html = client.get("/").content.decode()
    for animal in ["waterslak", "kikker", "meerkoet", "aalscholver", "meerval", "ijsvogel"]:
        assert f"/static/badges/{animal}.svg" in html
    assert "24 uur" in html


def test_landing_page_has_no_inline_script_and_no_react(client):
    html = without_sw_registration(client.get("/").content.decode())
    assert "<script" not in html


def test_unknown_path_gives_404_page_and_logs_the_path(client, caplog):
    with caplog.at_level(logging.WARNING, logger="koud.notfound"):
        response = client.get("/bestaat/niet")
    assert response.status_code == 404
    html = response.content.decode()
    assert "Oops! Page not found" in html
    assert 'href="/"' in html
    assert "/bestaat/niet" in caplog.text


def test_healthz_answers_when_the_database_does(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response["Cache-Control"].startswith("max-age=0")


def test_healthz_is_503_when_the_database_does_not_answer(client):
    with mock.patch("config.views.connection.cursor", side_effect=Exception("down")):
        response = client.get("/healthz")
    assert response.status_code == 503


def test_security_headers_are_set(client):
    response = client.get("/")
    csp = response["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "strict-origin-when-cross-origin"
    assert "geolocation=()" in response["Permissions-Policy"]


# Counts the database keeps from other rows (triggers, apps/challenges/tally_triggers.py): nothing to see or edit.
DERIVED_MODELS = {"challenges.DipWeekTally", "challenges.MemberWeekTally", "challenges.BadgeTally"}


def _registered_models():
    from django.contrib import admin

    return [
        model
        for model in apps.get_models()
        if model._meta.app_label in {"accounts", "invitations", "challenges", "events"}
        and model._meta.label not in DERIVED_MODELS
    ], admin.site._registry


def test_every_model_is_in_django_admin():
    models, registry = _registered_models()
    assert models and all(model in registry for model in models)


@pytest.mark.parametrize("model", _registered_models()[0], ids=lambda m: m._meta.label)
def test_django_admin_lists_and_adds_every_model(admin_client, model, django_assert_max_num_queries):
    from tests.factories import (
        DipFactory,
        EventGuestFactory,
        EventParticipantFactory,
        InvitationFactory,
        UserBadgeFactory,
    )

    for _ in range(3):
        DipFactory(), UserBadgeFactory(), EventParticipantFactory(), InvitationFactory(), EventGuestFactory()
    opts = model._meta
    with django_assert_max_num_queries(15):
        changelist = admin_client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist"))
    assert changelist.status_code == 200
    # Dips, cards, earned badges and buddy tags are made only by the stamp card's services: no add page (issue 10).
    made_by_the_stamp_card = {
        "challenges.Dip",
        "challenges.UserChallenge",
        "challenges.UserBadge",
        "challenges.DipBuddy",
    }
    # A weekly series is made with its events on /admin (event_series_create): no add page either (issue 27).
    made_on_admin = {"events.EventSeries"}
    # "Ik kom elke week" and a skipped date are the member's own, made on a date's page (apps.events.services.series).
    made_on_admin |= {"events.EventSeriesMember", "events.EventSeriesSkip"}
    # A guest signs up through the event's own link (apps.events.guest_views), never in the admin.
    made_elsewhere = made_by_the_stamp_card | made_on_admin | {"events.EventGuest"}
    add = admin_client.get(reverse(f"admin:{opts.app_label}_{opts.model_name}_add"))
    assert add.status_code == (403 if opts.label in made_elsewhere else 200)


def test_django_admin_refuses_members(member_client):
    response = member_client.get("/django-admin/")
    assert response.status_code == 302
    assert "/django-admin/login/" in response["Location"]
