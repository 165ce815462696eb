from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Event(models.Model):
    title = models.CharField("titel", max_length=150)
    event_date = models.DateTimeField("datum en tijd")
    location = models.CharField("locatie", max_length=200, blank=True)
    description = models.TextField("omschrijving", blank=True)
    max_participants = models.PositiveIntegerField("maximum deelnemers", null=True, blank=True)
    is_active = models.BooleanField("actief", default=True)
    created_at = models.DateTimeField("aangemaakt op", default=timezone.now)

    class Meta:
        # Django's Dutch admin messages say "De {name} …": a de-word reads well ("het event" would not).
        verbose_name = "activiteit"
        verbose_name_plural = "activiteiten"
        ordering = ["event_date"]
        constraints = [
            models.CheckConstraint(
                condition=Q(max_participants__isnull=True) | Q(max_participants__gte=1),
                name="event_max_participants_positive",
            ),
        ]
        indexes = [models.Index(fields=["event_date"], name="event_upcoming_idx", condition=Q(is_active=True))]

    def __str__(self):
        return self.title


class EventParticipant(models.Model):
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="participants", verbose_name="activiteit")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="event_participations",
        verbose_name="gebruiker",
    )
    created_at = models.DateTimeField("aangemeld op", default=timezone.now)

    class Meta:
        verbose_name = "deelnemer"
        verbose_name_plural = "deelnemers"
        ordering = ["created_at"]
        constraints = [models.UniqueConstraint(fields=["event", "user"], name="one_participation_per_user_and_event")]

    def __str__(self):
        return f"{self.user} bij {self.event}"
