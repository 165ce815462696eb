"""The member's export ("Download mijn gegevens"), prepared by the background worker.

One row per member: asking again replaces the old export, and two taps at once give one job (the row is
locked while a request decides). The ZIP itself lives in the private "exports" storage.
"""

import datetime
import uuid

from django.conf import settings
from django.db import models
from django.utils import timezone


class MemberExport(models.Model):
    class Status(models.TextChoices):
        PREPARING = "preparing", "Wordt klaargezet"
        READY = "ready", "Klaar"
        FAILED = "failed", "Mislukt"

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="member_export", verbose_name="lid"
    )
    status = models.CharField("status", max_length=20, choices=Status.choices, default=Status.PREPARING)
    # Each request is a new job: a worker that finishes an older (replaced) job throws its file away.
    job = models.UUIDField("taak", default=uuid.uuid4)
    file_name = models.CharField("bestand", max_length=200, blank=True)
    size = models.PositiveBigIntegerField("grootte", default=0)
    requested_at = models.DateTimeField("aangevraagd op", default=timezone.now)
    ready_at = models.DateTimeField("klaar op", null=True, blank=True)

    class Meta:
        verbose_name = "export van gegevens"
        verbose_name_plural = "exports van gegevens"

    def __str__(self):
        return f"Export van {self.user}"

    def expires_at(self):
        return self.ready_at + datetime.timedelta(hours=settings.EXPORT_KEEP_HOURS) if self.ready_at else None

    def is_downloadable(self, now=None) -> bool:
        now = now or timezone.now()
        return self.status == self.Status.READY and bool(self.file_name) and self.expires_at() > now
