"""One mail to the admins when a check of the Systeemstatus turns red, not one per look.

The scheduler's `check_status` job looks every few minutes; `StatusAlert` remembers which checks were red.
A check that turns red is mailed (with every line that is red at that moment); one that stays red is not
mailed again; one that turns green is forgotten, so it is mailed again should it turn red later.

The mails go through the project's mail path (a `Mail` row each, the mail rules of apps.notifications), and
are then delivered right here as well as by the queued task: the worker may be the very thing that stopped.
"""

import datetime

from django.contrib.auth import get_user_model
from django.db import transaction

from apps.accounts.models import UserRole
from apps.notifications.services import mails_deliver, member_mail_queue

from .models import StatusAlert
from .notices import SYSTEM_STATUS
from .status import Status


def status_alerts_update(*, status: Status) -> int:
    """Remember what is red; mail the admins when something turned red. Returns how many admins were mailed."""
    red = {result.name: result for result in status.red}
    with transaction.atomic():
        known = {alert.check_name: alert for alert in StatusAlert.objects.select_for_update()}
        StatusAlert.objects.filter(check_name__in=[name for name in known if name not in red]).delete()
        turned_red = [result for name, result in red.items() if name not in known]
        created = StatusAlert.objects.bulk_create(
            [StatusAlert(check_name=result.name, line=result.red[:500], red_since=status.now) for result in turned_red]
        )
        mail_ids = _mail_admins(status=status, alert_ids=[alert.pk for alert in created]) if turned_red else []
    if mail_ids:
        mails_deliver(mail_ids=mail_ids)  # no lock held here: the mail server may be slow
    return len(mail_ids)


def _admins():
    return get_user_model().objects.filter(is_active=True, roles__role=UserRole.Role.ADMIN).distinct().order_by("pk")


def _mail_admins(*, status: Status, alert_ids: list[int]) -> list[int]:
    # The key names the alerts that turned red: two looks at once (two schedulers) queue one mail each admin.
    key = "systeemstatus:" + "-".join(str(pk) for pk in sorted(alert_ids))
    mail_ids = []
    for admin in _admins():
        mail = member_mail_queue(kind=SYSTEM_STATUS, user=admin, dedupe_key=f"{key}:{admin.pk}"[:120], chosen=True)
        if mail is not None:
            mail_ids.append(mail.pk)
    return mail_ids


def alerts_since() -> dict[str, datetime.datetime]:
    return dict(StatusAlert.objects.values_list("check_name", "red_since"))
