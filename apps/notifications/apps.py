from django.apps import AppConfig


class NotificationsConfig(AppConfig):
    name = "apps.notifications"
    verbose_name = "E-mail"

    def ready(self):
        from apps.invitations.signals import invitations_created

        # Invitations sit below this app: they announce new invitations, and their mails are queued here.
        invitations_created.connect(_queue_invitation_mails, dispatch_uid="invitation-mails")


def _queue_invitation_mails(sender, *, invitations, **kwargs):
    from .services import invitation_mails_queue

    invitation_mails_queue(invitations=invitations)
