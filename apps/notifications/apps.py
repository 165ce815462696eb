from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "apps.notifications"
    verbose_name = "E-mail"

    def ready(self):
        from apps.accounts.mail import account_mail_queue_register
        from apps.invitations.signals import invitations_created

        from .services import account_mail_queue

        # Accounts sit below this app too: allauth's mails (password reset) go through this app's queue.
        account_mail_queue_register(account_mail_queue)

        # Invitations sit below this app: they announce new invitations, and their mails are queued here.
        invitations_created.connect(_queue_invitation_mails, dispatch_uid="invitation-mails")


def _queue_invitation_mails(sender, *, invitations, **kwargs):
    from .services import invitation_mails_queue

    invitation_mails_queue(invitations=invitations)
