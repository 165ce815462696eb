"""Issue 34 §6: allauth's authenticator set-up and recovery-code pages in the plain Dutch of the rest of the app:
no stiff "Authenticator geheim", no label ending in ":", and the recovery codes say what they are for and offer
a download. Rendered through the real views (after the password again, as every one of them asks)."""

import re
import time

import pytest
from allauth.mfa.models import Authenticator
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import format_hotp_value, hotp_value

from tests.factories import DEFAULT_PASSWORD

pytestmark = pytest.mark.django_db

WHAT_FOR = (
    "Met een herstelcode kom je binnen als je je telefoon kwijt bent. Elke code werkt één keer. "
    "Bewaar ze op een veilige plek."
)
STIFF = (
    "Authenticator geheim",
    "Authenticator code",
    "resulterende verificatie",
    "Activeer",
    "Genereer",
    "twee-factor",
)


def main_of(response) -> str:
    assert response.status_code == 200
    html = response.content.decode()
    return html[html.index("<main") : html.index("</main>")]


def labels(html: str) -> list[str]:
    return [
        re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", label)).strip()
        for label in re.findall(r"<label[^>]*>(.*?)</label>", html, re.S)
    ]


@pytest.fixture
def confirmed(member_client):
    member_client.post("/auth/opnieuw/", {"password": DEFAULT_PASSWORD})  # every one of these pages asks for it
    return member_client


def test_setting_up_the_app_reads_plainly(confirmed):
    html = main_of(confirmed.get("/account/beveiliging/app/instellen"))
    assert "Authenticator-app instellen" in html and "Stap 1. Koppel de app" in html and "Zet de app aan" in html
    assert "Of typ deze sleutel in de app" in html and "Code uit de app (6 cijfers)" in html
    for stiff in STIFF:
        assert stiff not in html, stiff
    assert labels(html) and not [label for label in labels(html) if label.endswith(":")], labels(html)
    assert 'alt="Vierkante code om te scannen met je authenticator-app"' in html


def test_the_app_is_set_up_with_the_code_from_the_form(confirmed, member):
    confirmed.get("/account/beveiliging/app/instellen")
    secret = confirmed.session["mfa.totp.secret"]
    wrong = main_of(confirmed.post("/account/beveiliging/app/instellen", {"code": "000000"}))
    assert 'aria-invalid="true"' in wrong and not Authenticator.objects.filter(user=member, type="totp").exists()
    code = format_hotp_value(hotp_value(secret, int(time.time()) // 30))
    response = confirmed.post("/account/beveiliging/app/instellen", {"code": code})
    assert response.status_code == 302
    assert Authenticator.objects.filter(user=member, type="totp").exists()


def test_the_recovery_codes_say_what_they_are_for_and_offer_the_download(confirmed, member):
    RecoveryCodes.activate(member)
    codes = RecoveryCodes(Authenticator.objects.get(user=member, type="recovery_codes")).get_unused_codes()
    html = main_of(confirmed.get("/account/beveiliging/herstelcodes"))
    assert WHAT_FOR in html and codes[0] in html
    assert html.index(WHAT_FOR) < html.index(codes[0])
    assert 'href="/account/beveiliging/herstelcodes/download"' in html and "Download de codes" in html
    assert "Nieuwe codes maken" in html
    assert not [label for label in labels(html) if label.endswith(":")], labels(html)
    download = confirmed.get("/account/beveiliging/herstelcodes/download")
    text = download.content.decode("ascii")
    assert "Met een herstelcode kom je binnen als je je telefoon kwijt bent." in text and codes[0] in text


def test_new_recovery_codes_read_plainly(confirmed, member):
    from allauth.mfa.totp.internal.auth import TOTP

    TOTP.activate(member, "JBSWY3DPEHPK3PXP")  # new codes need a factor they stand in for
    RecoveryCodes.activate(member)
    html = main_of(confirmed.get("/account/beveiliging/herstelcodes/nieuw"))
    assert "Nieuwe herstelcodes" in html and "De codes die je nu hebt, werken daarna niet meer." in html
    assert "Maak nieuwe codes" in html and "Genereer" not in html
    response = confirmed.post("/account/beveiliging/herstelcodes/nieuw")
    assert response.status_code == 302 and response["Location"] == "/account/beveiliging/herstelcodes"
