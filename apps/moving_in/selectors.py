from django.db.models import QuerySet

from .models import ImportedObject


def not_signed_in_since_the_move(user_ref) -> QuerySet[ImportedObject]:
    """The bookkeeping row of a member moved in who has not signed in here yet (for an Exists on the users)."""
    return ImportedObject.objects.filter(kind=ImportedObject.Kind.USER, user=user_ref, first_sign_in_at__isnull=True)
