"""Samen plonsen's receivers: a buddy request is told, an open afspraak deleted with its proposer's account
is told as cancelled, and rows that go past the services (an account deleted takes its afspraken, places
and tags along by cascade) leave no stale page behind."""

from django.db.models.signals import post_delete, post_save, pre_delete
from django.dispatch import receiver
from django.utils import timezone

from apps.challenges.models import DipBuddy
from apps.core.page_cache import EVENTS, MEMBER, TOGETHER, pages_changed

from . import notices
from .models import Meetup, MeetupParticipant, Reply


@receiver(post_save, sender=DipBuddy, dispatch_uid="together-buddy-request")
def buddy_tagged(sender, instance: DipBuddy, created: bool, raw: bool = False, **kwargs) -> None:
    """A clubmate named on a dip (dip_register's `buddy_ids`) hears of it, in the dip's transaction."""
    if created and not raw:
        notices.buddy_request(tag=instance)


@receiver(post_delete, sender=MeetupParticipant, dispatch_uid="together-participant-gone")
def meetup_participant_gone(sender, instance: MeetupParticipant, **kwargs) -> None:
    """A name off an afspraak's list (an account deleted, the Django admin): /samen and the dashboards."""
    pages_changed(TOGETHER)


@receiver(post_delete, sender=DipBuddy, dispatch_uid="together-buddy-tag-gone")
def buddy_tag_gone(sender, instance: DipBuddy, **kwargs) -> None:
    """A request gone with its dip or the tagger's account: off the buddy's dashboard, its mail unsent."""
    pages_changed(MEMBER, user_ids=[instance.buddy_id])
    notices.buddy_request_withdraw(tag=instance)


@receiver(pre_delete, sender=Meetup, dispatch_uid="together-meetup-deleted")
def meetup_deleted(sender, instance: Meetup, **kwargs) -> None:
    """An open afspraak that goes with its proposer's account (apps.accounts' `_user_remove`, which sits below
    samen plonsen and cannot call it) or is deleted in the Django admin: those who joined are told it is
    cancelled, as with "Afspraak annuleren", in the deletion's transaction (a rolled-back deletion tells
    nobody). Before the cascade removes anything, so the list of who joined is still there. A cancelled or
    past afspraak was told before, or is over: nobody is told again."""
    if instance.is_cancelled or instance.starts_at <= timezone.now():
        return
    joined = MeetupParticipant.objects.filter(meetup=instance).exclude(user_id=instance.proposer_id)
    for participant in joined.select_related("user"):
        notices.meetup_cancelled(meetup=instance, user=participant.user)
    # The lists change as its participant rows go (meetup_participant_gone).


@receiver(post_delete, sender=Reply, dispatch_uid="together-reply-gone")
def reply_gone(sender, instance: Reply, **kwargs) -> None:
    """A reply removed, or gone with its writer's account, its afspraak or its event: off the page it stood on."""
    pages_changed(TOGETHER if instance.meetup_id is not None else EVENTS)
