"""A place freed by a deletion that bypasses `event_leave` (a deleted account cascades to its places; the
Django admin's participant inline) still goes to the first on the waitlist, once that deletion commits."""

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from .models import EventParticipant


@receiver(post_delete, sender=EventParticipant, dispatch_uid="events_fill_waitlist_after_delete")
def fill_waitlist_after_delete(sender, instance: EventParticipant, **kwargs):
    from .services import event_waitlist_fill

    event_id = instance.event_id
    transaction.on_commit(lambda: event_waitlist_fill(event_id=event_id))
