from django.db import transaction
from django.db.models.signals import post_delete
from django.dispatch import receiver

from .models import MemberExport


@receiver(post_delete, sender=MemberExport)
def delete_export_file(sender, instance: MemberExport, **kwargs):
    # With the account or by the cleanup; only once the deletion is certain.
    name = instance.file_name
    if name:
        from .services import export_storage

        transaction.on_commit(lambda: export_storage().delete(name))
