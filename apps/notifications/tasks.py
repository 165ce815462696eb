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


# Notices per task for a message to the whole club: 2,000 members are 4 tasks.
@task()
def deliver_notices(notice_ids: list[int]) -> dict[str, int]:
    from .push import notices_deliver

    return notices_deliver(notice_ids=notice_ids)


@task()
def notices_check_claims() -> int:
    """A while after a delivery run claims notices: if that run died (killed, failed), its notices are queued
    again now, not at the next cron run. Comes again while claims are being sent."""
    from .push import claims_watch
    from .services import notices_recover_stuck

    recovered = notices_recover_stuck()
    claims_watch()
    return recovered


@task()
def club_message_fan_out(message_id: int) -> dict[str, int]:
    from .services import club_message_fan_out_run

    return club_message_fan_out_run(message_id=message_id)
