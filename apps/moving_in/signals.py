from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver

from .services import member_signed_in


@receiver(user_logged_in, dispatch_uid="moving_in_first_sign_in")
def first_sign_in(sender, request, user, **kwargs) -> None:
    member_signed_in(user_id=user.pk)
