"""Who was at an event, ticked by the organiser ("Was erbij"), and the dip that put on their card."""

from django.conf import settings
from django.db import models
from django.utils import timezone

from apps.challenges.models import Dip
from apps.events.models import Event


class Attendance(models.Model):
    """One member who was at one event. `dip` is the dip the sign-off stamped on their active card (None when
    nothing could be stamped: no active card, a dip already that day); `signed_off_by` is the organiser, named
    on that dip as "Afgetekend door {organisator}"."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="attendance", verbose_name="event")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attendances", verbose_name="lid"
    )
    dip = models.OneToOneField(
        Dip, on_delete=models.SET_NULL, null=True, blank=True, related_name="attendance", verbose_name="plons"
    )
    signed_off_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name="afgetekend door",
    )
    created_at = models.DateTimeField("afgetekend op", default=timezone.now)

    class Meta:
        verbose_name = "aanwezigheid"
        verbose_name_plural = "aanwezigheid"
        ordering = ["created_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["event", "user"], name="one_attendance_per_user_and_event")]

    def __str__(self):
        return f"{self.user} was bij {self.event}"
