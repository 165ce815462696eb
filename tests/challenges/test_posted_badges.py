"""A physical badge that was posted or handed over is never lost, and never goes on the to-send list again."""

import datetime

import pytest
from django.urls import reverse
from django.utils import timezone

from apps.challenges.models import Challenge, Dip, PhysicalStatus, UserBadge
from apps.challenges.services.cards import challenge_start
from apps.challenges.services.dip_changes import dip_undo
from apps.challenges.services.dips import dip_register
from apps.shipping.services import physical_badges_mark

pytestmark = pytest.mark.django_db


@pytest.fixture
def completed(member):
    card = challenge_start(user=member, challenge_id=Challenge.objects.get(target_dips=5).pk)
    for _ in range(4):
        dip_register(user=member)
    last = dip_register(user=member)
    assert last.completed and last.award is not None
    return card, last


def _mark_sent(award: UserBadge) -> None:
    physical_badges_mark(award_ids=[award.pk], status=PhysicalStatus.SENT, on=timezone.localdate())


@pytest.mark.parametrize("status", [PhysicalStatus.SENT, PhysicalStatus.HANDED_OVER])
def test_undoing_the_completing_dip_keeps_a_posted_badge_and_the_next_dip_does_not_resend_it(member, completed, status):
    card, last = completed
    physical_badges_mark(award_ids=[last.award.pk], status=status, on=timezone.localdate())

    undone = dip_undo(user=member, dip_id=last.dip.pk)
    assert undone.revoked_badge_ids == ()
    kept = UserBadge.objects.get(pk=last.award.pk)
    assert kept.physical_status == status and kept.physical_status_on == timezone.localdate()
    card.refresh_from_db()
    assert card.completed_at is None

    again = dip_register(user=member)
    assert again.completed and again.award.pk == last.award.pk
    awards = UserBadge.objects.filter(user_challenge=card, badge=last.badge)
    assert [(a.pk, a.physical_status) for a in awards] == [(last.award.pk, status)]


def test_the_django_admin_deleting_the_completing_dip_keeps_a_posted_badge(admin_client, member, completed):
    card, last = completed
    _mark_sent(last.award)
    response = admin_client.post(reverse("admin:challenges_dip_delete", args=[last.dip.pk]), {"post": "yes"})
    assert response.status_code == 302 and not Dip.objects.filter(pk=last.dip.pk).exists()
    assert UserBadge.objects.get(pk=last.award.pk).physical_status == PhysicalStatus.SENT
    dip_register(user=member)
    assert UserBadge.objects.filter(user_challenge=card, badge=last.badge).count() == 1


def test_a_badge_still_to_send_goes_with_the_undone_dip_and_comes_back_once(member, completed):
    card, last = completed
    undone = dip_undo(user=member, dip_id=last.dip.pk)
    assert undone.revoked_badge_ids == (last.badge.pk,)
    assert not UserBadge.objects.filter(pk=last.award.pk).exists()
    later = timezone.now() + datetime.timedelta(minutes=1)
    again = dip_register(user=member, now=later)
    award = UserBadge.objects.get(user_challenge=card, badge=last.badge)
    assert award.pk == again.award.pk and award.physical_status == PhysicalStatus.TO_SEND
