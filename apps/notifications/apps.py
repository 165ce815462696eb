from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "apps.notifications"
    verbose_name = "E-mail"

    def ready(self):
        from apps.accounts.mail import account_mail_queue_register
        from apps.accounts.signals import email_change_requested, email_changed
        from apps.invitations.signals import invitations_created

        from .services import allauth_mail_queue

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
    from .models import Mail
    from .services import account_mail_queue

    account_mail_queue(
        kind=Mail.Kind.EMAIL_CONFIRMATION, user=user, to_email=email_address.email, email_address=email_address
    )


def _queue_email_changed_notice(sender, *, user, old_email, **kwargs):
    from .models import Mail
    from .services import account_mail_queue

    account_mail_queue(kind=Mail.Kind.EMAIL_CHANGED, user=user, to_email=old_email)
