"""Background tasks (django-tasks): run by `manage.py db_worker`. The top of this app's line: each task runs work
from the modules below, which enqueue it through apps.notifications.queueing (each task registers there), so
queued rows name `apps.notifications.tasks.<name>`."""

from django_tasks import task

from .claims import claims_watch
from .queueing import task_register
from .services import club_message_fan_out_run, invitation_mails_prepare, mails_deliver, notices_recover_stuck


@task_register
@task()
def deliver_mails(mail_ids: list[int]) -> dict[str, int]:
    return mails_deliver(mail_ids=mail_ids)


@task_register
@task()
def send_invitation_mails(invitation_ids: list[int]) -> dict[str, int]:
    return mails_deliver(mail_ids=invitation_mails_prepare(invitation_ids=invitation_ids))


# Notices per task for a message to the whole club: 2,000 members are 4 tasks.
@task_register
@task()
def deliver_notices(notice_ids: list[int]) -> dict[str, int]:
    # Imported here: pywebpush and its HTTP and crypto libraries are some 40 MB that only a worker pushing needs
    # (every process imports this module when the apps are ready).
    from .push import notices_deliver

    return notices_deliver(notice_ids=notice_ids)


@task_register
@task()
def notices_check_claims() -> int:
    """A while after a delivery run claims notices: if that run died (killed, failed), its notices are queued
    again now, not at the next cron run. Comes again while claims are being sent."""
    recovered = notices_recover_stuck()
    claims_watch()
    return recovered


@task_register
@task()
def club_message_fan_out(message_id: int) -> dict[str, int]:
    return club_message_fan_out_run(message_id=message_id)
