"""/privacy: the statement, filled from the settings and the constants the app enforces; and the newsletter
consent with its date and source, in the member's export."""

import datetime
import json

import pytest
from django.test import Client
from django.utils import timezone

from apps.accounts.models import User
from apps.accounts.services import account_profile_update
from apps.events.services import GUEST_KEEP_DAYS
from apps.invitations.models import VALID_DAYS
from tests.factories import InvitationFactory, UserFactory
from tests.logbook.test_export import download

pytestmark = pytest.mark.django_db


def _retention(page: str) -> str:
    return page.split('data-testid="retention"')[1].split("</ul>")[0]


def test_the_statement_says_the_numbers_the_app_enforces(client, settings):
    settings.CLUB_NAME = "IJsberen Zandvoort"
    settings.PRIVACY_CONTACT = "bestuur@ijsberen.example"
    settings.EXPORT_KEEP_HOURS = 36
    settings.EXPORT_LINK_SECONDS = 600
    settings.AUDIT_KEEP_DAYS = 400
    settings.GUEST_CONFIRM_MINUTES = 45
    settings.SESSION_COOKIE_AGE = 14 * 86400
    response = client.get("/privacy")
    assert response.status_code == 200
    page = response.content.decode()
    assert "IJsberen Zandvoort beheert deze app" in page
    assert 'href="mailto:bestuur@ijsberen.example"' in page
    retention = _retention(page)
    assert "verloopt na 14 dagen" in retention
    assert "blijft 36 uur staan" in retention and "werkt 10 minuten" in retention
    assert f"{GUEST_KEEP_DAYS} dagen na het event" in retention
    assert "niet binnen 45 minuten met de link in de e-mail is bevestigd" in retention
    assert f"{VALID_DAYS} dagen geldig" in retention
    assert "400 dagen" in retention


def test_the_processors_follow_the_settings(client, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "smtp.mailhuis.example"
    settings.STORAGES = {
        **settings.STORAGES,
        "photos": {
            "BACKEND": "storages.backends.s3.S3Storage",
            "OPTIONS": {"endpoint_url": "https://s3.opslag.example:9000"},
        },
    }
    page = client.get("/privacy").content.decode()
    assert "de mailserver smtp.mailhuis.example" in page
    assert "een opslagdienst (s3.opslag.example)" in page


def test_the_footer_and_the_sign_up_form_link_to_it(client):
    assert 'href="/privacy"' in client.get("/").content.decode()
    assert 'href="/privacy">privacy</a>' in client.get("/auth?tab=registreren").content.decode()


def test_consent_at_sign_up_is_kept_with_its_date_and_source():
    InvitationFactory(code="WELKOM22", email="nieuw@example.nl")
    before = timezone.now()
    data = {"form": "registreren", "code": "WELKOM22", "full_name": "Nieuw Lid", "email": "nieuw@example.nl"}
    Client().post("/auth?tab=registreren", data | {"password": "geheim-123-ijs", "newsletter_consent": "on"})
    user = User.objects.get(email="nieuw@example.nl")
    assert user.newsletter_consent and user.newsletter_consent_source == "aanmelden"
    assert user.newsletter_consent_at >= before


def test_a_new_choice_on_account_is_dated_and_the_export_shows_it():
    member = UserFactory(newsletter_consent=False)
    account_profile_update(user=member, full_name=member.full_name, email=member.email, newsletter_consent=True)
    member = User.objects.get(pk=member.pk)
    assert member.newsletter_consent_source == "account"
    chosen = member.newsletter_consent_at
    # The same choice again (a name change) keeps the date of the choice.
    account_profile_update(user=member, full_name="Andere Naam", email=member.email, newsletter_consent=True)
    assert User.objects.get(pk=member.pk).newsletter_consent_at == chosen
    client = Client()
    client.force_login(member)
    profile = json.loads(download(client).read("profiel.json"))[0]
    assert profile["nieuwsbrief"] is True
    assert profile["nieuwsbrief_gekozen_via"] == "account"
    assert datetime.datetime.fromisoformat(profile["nieuwsbrief_gekozen_op"]) == chosen
