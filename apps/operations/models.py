"""What the installation's own machinery leaves behind: heartbeats of the long-running processes, one row
per run of a scheduled job, and which checks of the Systeemstatus were red at the last look (so the admins
get one mail when something turns red, not one per check)."""

from django.db import models
from django.utils import timezone


class Heartbeat(models.Model):
    """One long-running process (a task worker or the scheduler) saying it is alive. Written every
    HEARTBEAT_SECONDS while it runs and once more, with `stopped_at`, when it stops gracefully."""

    class Kind(models.TextChoices):
        WORKER = "worker", "Taakworker"
        SCHEDULER = "scheduler", "Planner"

    kind = models.CharField("soort", max_length=20, choices=Kind.choices)
    host = models.CharField("machine", max_length=255)
    pid = models.PositiveIntegerField("proces")
    started_at = models.DateTimeField("gestart op", default=timezone.now)
    seen_at = models.DateTimeField("laatst gezien op", default=timezone.now)
    stopped_at = models.DateTimeField("gestopt op", null=True, blank=True)

    class Meta:
        verbose_name = "hartslag"
        verbose_name_plural = "hartslagen"
        constraints = [models.UniqueConstraint(fields=["kind", "host", "pid"], name="heartbeat_one_per_process")]

    def __str__(self):
        return f"{self.get_kind_display()} {self.host}:{self.pid}"


class JobRun(models.Model):
    """One run of a scheduled job (apps/operations/jobs.py): when it started and ended, and how."""

    job = models.CharField("taak", max_length=60)
    host = models.CharField("machine", max_length=255, blank=True)
    started_at = models.DateTimeField("begonnen op", default=timezone.now)
    finished_at = models.DateTimeField("klaar op", null=True, blank=True)
    ok = models.BooleanField("gelukt", null=True)
    error = models.TextField("fout", blank=True)

    class Meta:
        verbose_name = "run van een geplande taak"
        verbose_name_plural = "runs van geplande taken"
        ordering = ["-started_at", "-pk"]
        indexes = [models.Index(fields=["job", "started_at"], name="jobrun_job_started_idx")]

    def __str__(self):
        return f"{self.job} {self.started_at:%Y-%m-%d %H:%M}"


class StatusAlert(models.Model):
    """A check of the Systeemstatus that was red at the scheduler's last look, since when. A check that
    turns red gets a row (and the admins one mail); a check that turns green loses it."""

    check_name = models.CharField("controle", max_length=60, unique=True)
    red_since = models.DateTimeField("rood sinds", default=timezone.now)
    line = models.CharField("melding", max_length=500)

    class Meta:
        verbose_name = "rode controle"
        verbose_name_plural = "rode controles"

    def __str__(self):
        return self.line


class FirstStart(models.Model):
    """When this installation first started (its first `migrate`; one row). The Systeemstatus gives what cannot
    have happened yet a grace period from then: the worker and scheduler a few minutes, the backup its first hour."""

    started_at = models.DateTimeField("eerste start", default=timezone.now)

    class Meta:
        verbose_name = "eerste start"
        verbose_name_plural = "eerste start"

    def __str__(self):
        return f"{self.started_at:%Y-%m-%d %H:%M}"
