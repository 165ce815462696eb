import re

import pytest
from django.core.management import call_command

from apps.accounts.models import User
from apps.challenges.card_payloads import MESSAGE_ADDED
from apps.challenges.models import UserBadge
from apps.events.models import Event
from apps.invitations.services import invitation_validate

pytestmark = pytest.mark.django_db


def run(capsys) -> str:
    call_command("seed_demo")
    return capsys.readouterr().out


def test_seed_demo_makes_a_living_demo_and_is_idempotent(capsys):
    out = run(capsys)
    admin = User.objects.get(email="admin@koudwater.example")
    member = User.objects.get(email="zwemmer@koudwater.example")
    assert admin.has_admin_role and admin.check_password("ijskoud-admin")
    assert member.check_password("ijskoud-zwemmer") and not member.is_admin
    card = member.user_challenges.get(is_active=True)
    assert card.dips.count() == 12 and card.dips.exclude(photo="").count() == 3
    assert sorted(UserBadge.objects.filter(user=member).values_list("badge__name", flat=True)) == [
        "Kikker",
        "Waterslak",
    ]
    assert Event.objects.count() == 4
    # The logbook, the physical badges and the waitlist have something to show.
    assert card.dips.filter(water_temperature__isnull=False, spot__gt="").count() == 8
    assert member.postal_address.city == "Den Haag"
    assert UserBadge.objects.filter(user=member, physical_status="verstuurd").count() == 1
    # The club feed has something to show: the member shares dips, and one photo.
    assert member.club_sharing.share_dips and card.dips.filter(share_photo=True).count() == 1
    waitlist = Event.objects.get(title="Zonsopgangduik").waitlist.order_by("id")
    assert [entry.user.email for entry in waitlist] == ["walrus@koudwater.example", member.email]
    code = re.search(r"/auth\?invite=([A-Z0-9]{8})", out).group(1)
    assert invitation_validate(code=code, email="iemand@example.nl").is_valid

    again = run(capsys)
    assert User.objects.count() == 5 and Event.objects.count() == 4 and card.dips.count() == 12
    assert code in again


def test_the_demo_members_first_dip_after_make_run_is_a_new_one(capsys, client):
    """Issue 46 §3: the newcomer signs in as the printed demo member and dips: a new stamp, not "already on
    your card" (the seeded last dip was the same moment, within DIP_SAME_SWIM_HOURS)."""
    run(capsys)
    client.force_login(User.objects.get(email="zwemmer@koudwater.example"))
    response = client.post("/challenge/plons", HTTP_ACCEPT="application/json")
    assert response.status_code == 201 and response.json()["message"] == MESSAGE_ADDED
