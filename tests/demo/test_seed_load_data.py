"""`seed_load_data` at a small scale: the rows follow the app's rules, and a second run changes nothing."""

import io
import itertools

import pytest
from django.core.management import call_command
from django.db.models import Count, Max

from apps.accounts.models import User, UserRole
from apps.challenges.models import Badge, Challenge, Dip, UserBadge, UserChallenge, photo_storage
from apps.demo.load_data import (
    BENCH_MEMBER_EMAIL,
    EVENT_PREFIX,
    LOAD_ADMIN_EMAIL,
    LOAD_DOMAIN,
    LOAD_PASSWORD,
)
from apps.events.models import Event
from apps.invitations.models import Invitation
from tests.factories import UserFactory

SMALL = {"members": 12, "dips_per_member": 30, "photos": 25, "invitations": 20, "events": 6}


def seed(**extra) -> str:
    out = io.StringIO()
    call_command("seed_load_data", stdout=out, **{**SMALL, **extra})
    return out.getvalue()


def snapshot() -> dict:
    members = User.objects.filter(email__endswith=f"@{LOAD_DOMAIN}").exclude(email=LOAD_ADMIN_EMAIL)
    return {
        "members": sorted(members.values_list("pk", "email")),
        "cards": UserChallenge.objects.filter(user__in=members).count(),
        "dips": Dip.objects.filter(user__in=members).count(),
        "photos": sorted(Dip.objects.exclude(photo="").values_list("photo", flat=True)),
        "awards": UserBadge.objects.filter(user__in=members).count(),
        "invitations": Invitation.objects.filter(invited_by__email=LOAD_ADMIN_EMAIL).count(),
        "events": Event.objects.filter(title__startswith=EVENT_PREFIX).count(),
    }


@pytest.mark.django_db
def test_counts_and_sign_in():
    bystander = UserFactory(email="echt@example.nl")
    catalogue = sorted(Challenge.objects.values_list("pk", "name", "target_dips"))
    output = seed()

    assert LOAD_PASSWORD in output
    members = User.objects.filter(email__endswith=f"@{LOAD_DOMAIN}").exclude(email=LOAD_ADMIN_EMAIL)
    assert members.count() == 12
    assert Dip.objects.filter(user__in=members).count() == 12 * 30
    assert Dip.objects.exclude(photo="").count() == 25
    assert Invitation.objects.filter(invited_by__email=LOAD_ADMIN_EMAIL).count() == 20
    assert Event.objects.filter(title__startswith=EVENT_PREFIX).count() == 6

    # Every load account signs in with the printed password; the load admin has the admin role.
    admin = User.objects.get(email=LOAD_ADMIN_EMAIL)
    assert UserRole.objects.filter(user=admin, role=UserRole.Role.ADMIN).exists()
    for user in [admin, *members]:
        assert user.check_password(LOAD_PASSWORD)
    # The catalogue and other people's data are left alone.
    assert sorted(Challenge.objects.values_list("pk", "name", "target_dips")) == catalogue
    assert User.objects.filter(pk=bystander.pk).exists()


@pytest.mark.django_db
def test_rows_follow_the_rules():
    seed()
    milestones = {}
    for badge in Badge.objects.all():
        milestones.setdefault(badge.challenge_id, {})[badge.milestone_dips] = badge.pk

    cards = UserChallenge.objects.select_related("challenge").annotate(total=Count("dips"), top=Max("dips__number"))
    assert cards.exists()
    for card in cards:
        target = card.challenge.target_dips
        # Numbers 1..n without gaps (the database already refuses duplicates), never past the target.
        assert (card.top or 0) == card.total <= target
        assert (card.completed_at is not None) == (card.total == target)
        if not card.is_active:
            assert card.completed_at is not None, "only completed cards are archived"
        dips = list(card.dips.order_by("number"))
        assert all(dip.user_id == card.user_id for dip in dips)
        assert all(a.dip_date <= b.dip_date and a.created_at < b.created_at for a, b in itertools.pairwise(dips))
        assert all(card.started_at <= dip.created_at for dip in dips)
        if card.completed_at:
            assert card.completed_at == dips[-1].created_at
        # Exactly the badges of the milestones reached, earned at the moment of that dip.
        reached = {m: pk for m, pk in milestones.get(card.challenge_id, {}).items() if m <= card.total}
        awards = {award.badge_id: award for award in card.badges.all()}
        assert set(awards) == set(reached.values())
        for milestone, badge_id in reached.items():
            assert awards[badge_id].earned_at == dips[milestone - 1].created_at
            assert awards[badge_id].user_id == card.user_id

    per_user = UserChallenge.objects.filter(is_active=True).values("user").annotate(n=Count("pk"))
    assert all(row["n"] == 1 for row in per_user)

    # The bench member: two archived cards and an active Waterdieren card one dip short of the target.
    bench = User.objects.get(email=BENCH_MEMBER_EMAIL)
    active = UserChallenge.objects.get(user=bench, is_active=True)
    assert active.challenge.is_waterdieren
    assert active.dips.count() == active.challenge.target_dips - 1
    assert active.dips.exclude(photo="").exists()

    # Photos are real files in the photos storage, with thumbnails.
    storage = photo_storage()
    for dip in Dip.objects.exclude(photo="")[:5]:
        assert storage.exists(dip.photo.name) and storage.exists(dip.thumbnail.name)
        with storage.open(dip.photo.name) as handle:
            assert handle.read(3) == b"\xff\xd8\xff"

    statuses = {invitation.status for invitation in Invitation.objects.all()}
    assert statuses == {Invitation.Status.ACTIVE, Invitation.Status.USED, Invitation.Status.EXPIRED}
    for event in Event.objects.annotate(n=Count("participants")):
        assert event.max_participants is None or event.n <= event.max_participants


@pytest.mark.django_db
def test_second_run_changes_nothing_and_reset_gives_the_same_club():
    seed()
    first = snapshot()
    output = seed()
    assert "niets veranderd" in output
    assert snapshot() == first

    seed(reset=True)
    again = snapshot()
    assert {k: v for k, v in again.items() if k not in {"members", "photos"}} == {
        k: v for k, v in first.items() if k not in {"members", "photos"}
    }
    assert [email for _, email in again["members"]] == [email for _, email in first["members"]]
    assert len(again["photos"]) == len(first["photos"])
    # The old photo files went with the old rows.
    storage = photo_storage()
    assert not any(storage.exists(name) for name in set(first["photos"]) - set(again["photos"]))

    # Other numbers: the old set is replaced, not added to.
    seed(members=5, dips_per_member=4, photos=3, invitations=4, events=2)
    assert User.objects.filter(email__endswith=f"@{LOAD_DOMAIN}").count() == 6
    assert Dip.objects.count() == 20
