"""Every scheduled job, declared once: what it runs and when. `manage.py scheduler` runs them;
the Systeemstatus shows each one's last success; tests/operations/test_jobs.py walks the list (every
command exists, every scheduled command of the project is here).

A job runs a management command through `call_command`, so an operator can run the very same thing by hand.
Interval jobs run once per slot of their interval (aligned to the clock: 15 minutes means :00, :15, …);
daily jobs once per local day, from their hour on. A slot missed (the scheduler was down at 03:00) is run
as soon as the scheduler is back; a failed run is tried again after `retry_after`.
"""

import datetime
import zoneinfo
from dataclasses import dataclass, field

from django.conf import settings

MINUTE = datetime.timedelta(minutes=1)
HOUR = datetime.timedelta(hours=1)
DAY = datetime.timedelta(days=1)


@dataclass(frozen=True)
class Job:
    name: str
    command: str
    what: str  # Dutch: what it does
    label: str = ""  # Dutch: its name on the Systeemstatus (tests/operations/test_jobs.py: every job has one)
    every: datetime.timedelta = DAY
    # Daily jobs: the local time they run from; a setting's name may give the hour.
    hour: int = 0
    minute: int = 0
    hour_setting: str = ""
    args: tuple[str, ...] = field(default=())

    @property
    def daily(self) -> bool:
        return self.every == DAY

    def run_hour(self) -> int:
        return int(getattr(settings, self.hour_setting)) if self.hour_setting else self.hour

    def slot_start(self, now: datetime.datetime) -> datetime.datetime:
        """The start of the slot `now` falls in: the job is due when it has not succeeded since."""
        if self.daily:
            local = now.astimezone(zoneinfo.ZoneInfo(settings.TIME_ZONE))
            start = local.replace(hour=self.run_hour(), minute=self.minute, second=0, microsecond=0)
            return start if start <= local else start - DAY
        epoch = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)
        return now - (now - epoch) % self.every

    @property
    def retry_after(self) -> datetime.timedelta:
        """How long after a failed (or killed) run it is tried again within the same slot."""
        return min(self.every, HOUR)

    @property
    def late_after(self) -> datetime.timedelta:
        """No success for this long is red on the Systeemstatus: two slots missed, with some slack."""
        return self.every + DAY // 12 if self.daily else 2 * self.every + 15 * MINUTE


JOBS: list[Job] = [
    Job(
        "send_scheduled_mail",
        "send_scheduled_mail",
        "herinneringen, verlopen wachtlijstplekken en gastaanmeldingen, mislukte mails opnieuw",
        label="Geplande mails versturen",
        every=15 * MINUTE,
    ),
    Job(
        "delete_old_exports",
        "delete_old_exports",
        "verlopen downloads van 'Download mijn gegevens' weg",
        label="Verlopen downloads opruimen",
        every=HOUR,
    ),
    Job(
        "check_status",
        "check_status",
        "de Systeemstatus bekijken en de admins mailen als iets rood wordt",
        label="Systeemstatus bijwerken",
        every=5 * MINUTE,
        args=("--quiet",),
    ),
    Job(
        "delete_old_guests",
        "delete_old_guests",
        "gasten 30 dagen na hun event weg",
        label="Oude gasten verwijderen",
        hour=4,
        minute=30,
    ),
    Job(
        "forget_shore_times",
        "forget_shore_times",
        "de tijden van 'Aan de waterkant' weg na de dag van de zwempartij",
        label="Waterkant-tijden vergeten",
        hour=0,
        minute=5,
    ),
    Job(
        "prune_audit_log",
        "prune_audit_log",
        "auditlog ouder dan AUDIT_KEEP_DAYS weg",
        label="Oud auditlog opruimen",
        hour=4,
        minute=45,
    ),
    Job(
        "send_brrr_notices",
        "send_brrr_notices",
        "de Brrr!-meldingen van de dag",
        label="Brrr!-meldingen versturen",
        hour=19,
    ),
    Job(
        "prune_db_task_results",
        "prune_db_task_results",
        "afgehandelde achtergrondtaken opruimen",
        label="Achtergrondtaken opruimen",
        hour=5,
    ),
    Job("backup", "backup", "de dagelijkse back-up", label="Dagelijkse back-up", hour_setting="BACKUP_HOUR"),
]

JOBS_BY_NAME = {job.name: job for job in JOBS}
