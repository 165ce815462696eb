from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "apps.notifications"
    verbose_name = "E-mail"

    def ready(self):
        from django.utils.module_loading import autodiscover_modules

        from apps.accounts.mail import account_mail_queue_register
        from apps.accounts.signals import email_change_requested, email_changed
        from apps.invitations.signals import invitations_created

        from . import (
            kinds,  # noqa: F401 - the kinds of the apps below this one, and club messages
            tasks,  # noqa: F401 - registers each task with the seam the services enqueue through
        )
        from .services import allauth_mail_queue

        # Each app declares the kinds of message it sends in its own notices.py: importing them fills the registry
        # (apps.notifications.registry) before the first request or task.
        autodiscover_modules("notices")

        # Accounts sit below this app: allauth's mails (password reset) go through this app's queue.
        account_mail_queue_register(allauth_mail_queue)

        # Invitations and accounts sit below this app: they announce what happened, their mails are queued here.
        invitations_created.connect(_queue_invitation_mails, dispatch_uid="invitation-mails")
        email_change_requested.connect(_queue_email_confirmation, dispatch_uid="email-confirmation-mail")
        email_changed.connect(_queue_email_changed_notice, dispatch_uid="email-changed-mail")


def _queue_invitation_mails(sender, *, invitations, **kwargs):
    from .services import invitation_mails_queue

    invitation_mails_queue(invitations=invitations)


def _queue_email_confirmation(sender, *, user, email_address, **kwargs):
    from .kinds import EMAIL_CONFIRMATION
    from .services import account_mail_queue

    account_mail_queue(kind=EMAIL_CONFIRMATION, user=user, to_email=email_address.email, email_address=email_address)


def _queue_email_changed_notice(sender, *, user, old_email, **kwargs):
    from .kinds import EMAIL_CHANGED
    from .services import account_mail_queue

    account_mail_queue(kind=EMAIL_CHANGED, user=user, to_email=old_email)
