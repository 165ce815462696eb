"""Deletions that bypass the events services (a deleted account cascades to its places and waitlist
entries; the Django admin's participant inline): a freed place still goes to the first on the waitlist,
and the cached event lists are rendered anew, once that deletion commits."""

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from apps.core.page_cache import EVENTS, MEMBER, pages_changed
from apps.notifications.models import Mail

from .models import CalendarFeed, Event, EventGuest, EventParticipant, EventWaitlistEntry


@receiver(post_delete, sender=EventParticipant, dispatch_uid="events_fill_waitlist_after_delete")
def fill_waitlist_after_delete(sender, instance: EventParticipant, **kwargs):
    from .services import event_waitlist_fill

    pages_changed(EVENTS)
    event_id = instance.event_id
    transaction.on_commit(lambda: event_waitlist_fill(event_id=event_id))


@receiver(post_delete, sender=EventWaitlistEntry, dispatch_uid="events_changed_after_waitlist_delete")
def waitlist_changed_after_delete(sender, instance: EventWaitlistEntry, **kwargs):
    pages_changed(EVENTS)
    if instance.offer_expires_at is not None:
        # An open offer held a place (an account deleted with its offer): the place is offered on. The services'
        # own deletions refresh the offers themselves; this second look then finds nothing to do.
        from .services import event_waitlist_fill

        event_id = instance.event_id
        transaction.on_commit(lambda: event_waitlist_fill(event_id=event_id))


@receiver(post_delete, sender=EventGuest, dispatch_uid="events_guest_gone")
def guest_gone(sender, instance: EventGuest, **kwargs):
    """A guest deleted (cancelled, removed after 30 days, the Django admin): their mails go, their place is
    offered to the waitlist."""
    from .notices import guest_notices_delete
    from .services import event_waitlist_fill

    pages_changed(EVENTS)
    guest_notices_delete(guest_ids=[instance.pk])
    event_id = instance.event_id
    transaction.on_commit(lambda: event_waitlist_fill(event_id=event_id))


@receiver(post_delete, sender=Event, dispatch_uid="events_mails_go_with_their_event")
def mails_go_with_their_event(sender, instance: Event, **kwargs):
    """A mail keeps its event as a plain id (no foreign key up from notifications): the event's mails go with
    it, in the same transaction, however the event is deleted (the Django admin, a queryset)."""
    Mail.objects.filter(event_id=instance.pk).delete()


@receiver(post_delete, sender=CalendarFeed, dispatch_uid="events_calendar_link_gone")
def calendar_link_gone(sender, instance: CalendarFeed, **kwargs):
    """A calendar link deleted in the Django admin: /events and /account offer to make a new one."""
    pages_changed(MEMBER, user_ids=[instance.user_id])
