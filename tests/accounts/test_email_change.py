"""A new e-mail address (issue 22 §2): asked after the password, used only once the link sent to it is opened,
and the old address is told. The mails go through the queue and the real worker, to a real SMTP server."""

import json
import re

import pytest
from allauth.account.models import EmailAddress
from django.core import mail as django_mail

from apps.accounts.services import MESSAGE_EMAIL_TAKEN_SINCE, account_profile_update
from apps.notifications.models import Mail
from tests.factories import DEFAULT_PASSWORD, UserFactory
from tests.logbook.test_export import download
from tests.mailbox import run_worker, text_and_html

pytestmark = pytest.mark.django_db

PROFILE = "/account/profiel"
NEW = {"profiel-full_name": "Marit Zwemmer", "profiel-email": "Marit.Nieuw@Example.nl"}


def _confirm_link(message) -> str:
    text, html = text_and_html(message)
    link = re.search(r"https://koudwater\.example(/account/e-mailadres-bevestigen/\S+)", text).group(1)
    assert f'href="https://koudwater.example{link}"' in html
    return link


def test_a_session_alone_cannot_change_the_address(member_client, member):
    response = member_client.post(PROFILE, NEW)
    assert response.status_code == 302 and response["Location"] == "/auth/opnieuw/?next=%2Faccount%2Fprofiel"
    member.refresh_from_db()
    assert member.email == "marit@example.nl"
    assert not EmailAddress.objects.filter(email="marit.nieuw@example.nl").exists() and not Mail.objects.exists()


def test_a_name_alone_needs_no_password(member_client, member):
    response = member_client.post(PROFILE, {"profiel-full_name": "Marit Z.", "profiel-email": "MARIT@example.nl"})
    assert response.status_code == 302 and response["Location"] == "/account"
    member.refresh_from_db()
    assert member.full_name == "Marit Z."


def test_the_new_address_is_used_only_after_its_link_and_the_old_one_is_told(
    smtp_server, member_client, member, client
):
    member_client.post(PROFILE, NEW)  # refused: the password first; allauth keeps the form
    response = member_client.post("/auth/opnieuw/", {"password": DEFAULT_PASSWORD, "next": PROFILE}, follow=True)
    page = response.content.decode()
    assert "We hebben een link gestuurd naar marit.nieuw@example.nl" in page
    member.refresh_from_db()
    assert member.email == "marit@example.nl"  # not yet

    run_worker()
    message = smtp_server.only()
    assert message["To"] == "marit.nieuw@example.nl"
    assert message["Subject"] == "Bevestig je nieuwe e-mailadres"
    assert message["List-Unsubscribe"] is None  # an answer to the member's own action
    link = _confirm_link(message)

    # A mail scanner opening the link changes nothing; the button does.
    page = member_client.get(link).content.decode()
    assert "Ja, dit is mijn nieuwe e-mailadres" in page
    member.refresh_from_db()
    assert member.email == "marit@example.nl"
    response = member_client.post(link, follow=True)
    assert response.redirect_chain[-1][0] == "/account"
    assert "Gelukt: marit.nieuw@example.nl is nu je e-mailadres." in response.content.decode()
    member.refresh_from_db()
    assert member.email == "marit.nieuw@example.nl"
    assert client.login(email="marit.nieuw@example.nl", password=DEFAULT_PASSWORD)
    assert not client.login(email="marit@example.nl", password=DEFAULT_PASSWORD)

    run_worker()
    notice = smtp_server.messages[-1]
    assert notice["To"] == "marit@example.nl"
    assert notice["Subject"] == "Je e-mailadres is gewijzigd"
    text, _html = text_and_html(notice)
    assert "marit.nieuw@example.nl" in text and "Was jij dit niet?" in text
    # The link is used up.
    assert "Deze link werkt niet (meer)" in member_client.get(link).content.decode()


def test_a_newer_request_makes_the_older_link_useless(smtp_server, member):
    account_profile_update(user=member, full_name="Marit", email="eerste@example.nl", newsletter_consent=False)
    account_profile_update(user=member, full_name="Marit", email="tweede@example.nl", newsletter_consent=False)
    run_worker()
    # The first request's mail went with its request: only the latest link is sent.
    assert [m["To"] for m in smtp_server.messages] == ["tweede@example.nl"]
    assert list(EmailAddress.objects.filter(user=member, verified=False).values_list("email", flat=True)) == [
        "tweede@example.nl"
    ]


def test_an_address_taken_before_the_link_is_opened_is_refused(smtp_server, member, client):
    account_profile_update(user=member, full_name="Marit", email="gewild@example.nl", newsletter_consent=False)
    run_worker()
    link = _confirm_link(smtp_server.only())
    UserFactory(email="gewild@example.nl")

    response = client.post(link, follow=True)
    assert MESSAGE_EMAIL_TAKEN_SINCE in response.content.decode()
    member.refresh_from_db()
    assert member.email == "marit@example.nl"
    assert not EmailAddress.objects.filter(user=member, email="gewild@example.nl").exists()


def test_a_password_reset_for_an_address_still_waiting_for_its_link_sends_nothing(member, client):
    account_profile_update(user=member, full_name="Marit", email="nog-niet@example.nl", newsletter_consent=False)
    run_worker()
    django_mail.outbox.clear()
    client.post("/auth/wachtwoord-vergeten", {"email": "nog-niet@example.nl"})
    run_worker()
    assert django_mail.outbox == []
    client.post("/auth/wachtwoord-vergeten", {"email": "marit@example.nl"})
    run_worker()
    assert [m.to for m in django_mail.outbox] == [["marit@example.nl"]]


def test_the_waiting_address_and_its_mail_leave_with_the_account(member):
    account_profile_update(user=member, full_name="Marit", email="weg@example.nl", newsletter_consent=False)
    member.delete()
    assert not EmailAddress.objects.filter(email="weg@example.nl").exists()
    assert not Mail.objects.filter(to_email="weg@example.nl").exists()


def test_the_waiting_address_is_in_the_members_export(member_client, member):
    account_profile_update(user=member, full_name="Marit", email="straks@example.nl", newsletter_consent=False)
    archive = download(member_client)
    assert json.loads(archive.read("e-mailadressen.json")) == [
        {"e-mailadres": "marit@example.nl", "bevestigd": True, "in_gebruik": True},
        {"e-mailadres": "straks@example.nl", "bevestigd": False, "in_gebruik": False},
    ]
    kinds = [row["soort"] for row in json.loads(archive.read("e-mails.json"))]
    assert kinds == ["Nieuw e-mailadres bevestigen"]
