"""Photo files follow their dip: whether a dip, a challenge or a whole user is deleted."""

from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from apps.accounts.models import User

from .models import Dip, photo_storage
from .photo_cleanup import photo_folder_delete


@receiver(post_delete, sender=Dip)
def delete_photo_files(sender, instance: Dip, **kwargs):
    names = [name for name in (instance.photo.name, instance.thumbnail.name) if name]
    if names:
        # Only once the deletion is certain: a rolled-back delete must keep its photos.
        transaction.on_commit(lambda: [photo_storage().delete(name) for name in names])


@receiver(post_delete, sender=User, dispatch_uid="challenges_photo_folder_after_user_delete")
def delete_photo_folder(sender, instance: User, **kwargs):
    """An account's photo folder goes with it, also files no dip pointed to (a worker that died mid-upload)."""
    folder = str(instance.pk)
    transaction.on_commit(lambda: photo_folder_delete(folder=folder))
