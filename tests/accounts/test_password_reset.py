import re

import pytest
from django.core import mail

from tests.factories import DEFAULT_PASSWORD
from tests.mailbox import run_worker

pytestmark = pytest.mark.django_db


def test_the_reset_page_is_dutch(client):
    html = client.get("/auth/wachtwoord-vergeten").content.decode()
    assert "Wachtwoord vergeten?" in html
    assert re.search(r"<label [^>]*>E-mailadres</label>", html)
    assert "Stuur de herstellink" in html


def test_a_member_resets_the_password_by_a_dutch_email(client, member):
    response = client.post("/auth/wachtwoord-vergeten", {"email": "Marit@Example.nl"})
    assert response["Location"] == "/auth/wachtwoord-vergeten/verstuurd"
    assert "Kijk in je mailbox" in client.get(response["Location"]).content.decode()

    assert mail.outbox == []  # queued: the background worker sends it
    run_worker()
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["marit@example.nl"]
    assert message.subject == "Koud water challenge: Nieuw wachtwoord kiezen"
    assert "Hallo Marit Zwemmer," in message.body
    assert "Kies een nieuw wachtwoord via deze link" in message.body
    link = re.search(r"http://testserver(/auth/wachtwoord-herstellen/\S+)", message.body).group(1)

    # allauth moves the key out of the URL into the session before showing the form.
    form_page = client.get(link, follow=True)
    html = form_page.content.decode()
    assert "Kies een nieuw wachtwoord" in html
    assert re.search(r"<label [^>]*>Nieuw wachtwoord</label>", html)
    action = form_page.redirect_chain[-1][0]

    short = client.post(action, {"password1": "kort", "password2": "kort"})
    assert "Je wachtwoord moet minstens 6 tekens lang zijn" in short.content.decode()
    different = client.post(action, {"password1": "nieuw-ijs-42", "password2": "nieuw-ijs-43"})
    assert "Je moet hetzelfde wachtwoord twee keer intoetsen." in different.content.decode()

    done = client.post(action, {"password1": "nieuw-ijs-42", "password2": "nieuw-ijs-42"})
    assert done["Location"] == "/auth/wachtwoord-hersteld"
    assert "Wachtwoord gewijzigd" in client.get(done["Location"]).content.decode()

    member.refresh_from_db()
    assert member.check_password("nieuw-ijs-42")
    assert not member.check_password(DEFAULT_PASSWORD)
    response = client.post("/auth", {"form": "inloggen", "login": "marit@example.nl", "password": "nieuw-ijs-42"})
    assert response["Location"] == "/dashboard"


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client, db):
    response = client.post("/auth/wachtwoord-vergeten", {"email": "niemand@example.nl"})
    assert response["Location"] == "/auth/wachtwoord-vergeten/verstuurd"
    assert mail.outbox == []


def test_a_bad_reset_link_says_so_in_dutch(client, member):
    html = client.get("/auth/wachtwoord-herstellen/1-onzin-sleutel").content.decode()
    assert "Link werkt niet meer" in html
