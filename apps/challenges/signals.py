"""Photo files follow their dip: whether a dip, a challenge or a whole user is deleted."""

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from .models import Dip, photo_storage


@receiver(post_delete, sender=Dip)
def delete_photo_files(sender, instance: Dip, **kwargs):
    names = [name for name in (instance.photo.name, instance.thumbnail.name) if name]
    if names:
        # Only once the deletion is certain: a rolled-back delete must keep its photos.
        transaction.on_commit(lambda: [photo_storage().delete(name) for name in names])
