"""Background tasks (django-tasks): queued by the services, run by `manage.py db_worker`."""

from django_tasks import task


@task()
def deliver_mails(mail_ids: list[int]) -> dict[str, int]:
    # Imported here: the services enqueue this task, so importing them at module level would be a cycle.
    from .services import mails_deliver

    return mails_deliver(mail_ids=mail_ids)


@task()
def send_invitation_mails(invitation_ids: list[int]) -> dict[str, int]:
    from .services import invitation_mails_prepare, mails_deliver

    return mails_deliver(mail_ids=invitation_mails_prepare(invitation_ids=invitation_ids))
