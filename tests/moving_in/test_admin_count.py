"""/admin says how many members moved in from the original app have not signed in since the move; the page
keeps its query budget."""

import re

import pytest
from django.test import Client

from apps.accounts.models import User

from .source_club import PASSWORDS

pytestmark = pytest.mark.django_db


def moved_note(html: str) -> str | None:
    found = re.search(r'data-admin-stat="movedNotSignedIn"><strong>(\d+)</strong> ([^<]+)', html)
    return f"{found.group(1)} {found.group(2).strip()}" if found else None


def test_admin_counts_members_not_signed_in_since_the_move(
    small_club, run_import, admin_client, django_assert_max_num_queries
):
    client = Client()  # the member's own browser (admin_client is the test's client, signed in as the admin)
    assert moved_note(admin_client.get("/admin").content.decode()) is None  # no move, no line
    run_import(database_url=small_club.url)
    # The page (10), the Systeemstatus card (6) and, with no worker seen yet, its first start (1).
    with django_assert_max_num_queries(17):
        html = admin_client.get("/admin").content.decode()
    assert moved_note(html) == "5 leden hebben nog niet ingelogd sinds de overstap van de oude app."
    response = client.post("/auth", {"form": "inloggen", "login": "anna@oud.nl", "password": PASSWORDS["anna"]})
    assert response.status_code == 302
    # The first sign-in changes the club's figures: the cached page is rendered anew.
    assert moved_note(admin_client.get("/admin").content.decode()).startswith("4 leden")
    client.logout()
    client.force_login(User.objects.get(email="anna@oud.nl"))  # a second sign-in counts once
    assert moved_note(admin_client.get("/admin").content.decode()).startswith("4 leden")
