"""Plonsafspraken: "Morgen 7:30 Sloterplas, wie gaat mee?". The proposer goes along (a participant row of
their own); others join and leave; the proposer may cancel, which keeps the row (the mails to those who
joined read it) and takes it off every list."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

PLACE_MAX_LENGTH = 100
NOTE_MAX_LENGTH = 300


class Meetup(models.Model):
    proposer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="meetups_proposed", verbose_name="voorsteller"
    )
    starts_at = models.DateTimeField("wanneer")
    place = models.CharField("waar", max_length=PLACE_MAX_LENGTH)
    note = models.CharField("opmerking", max_length=NOTE_MAX_LENGTH, blank=True, default="")
    created_at = models.DateTimeField("voorgesteld op", default=timezone.now)
    cancelled_at = models.DateTimeField("geannuleerd op", null=True, blank=True)

    class Meta:
        verbose_name = "plonsafspraak"
        verbose_name_plural = "plonsafspraken"
        ordering = ["starts_at", "pk"]
        constraints = [
            models.CheckConstraint(condition=~Q(place=""), name="meetup_place_not_empty"),
        ]
        indexes = [
            models.Index(fields=["starts_at"], name="meetup_open_idx", condition=Q(cancelled_at__isnull=True)),
            models.Index(fields=["proposer", "starts_at"], name="meetup_proposer_idx"),
        ]

    def __str__(self):
        return f"{self.place} ({timezone.localtime(self.starts_at):%Y-%m-%d %H:%M})"

    @property
    def is_cancelled(self) -> bool:
        return self.cancelled_at is not None


class MeetupParticipant(models.Model):
    """One member going along ("Ik ga mee"), the proposer included."""

    meetup = models.ForeignKey(Meetup, on_delete=models.CASCADE, related_name="participants", verbose_name="afspraak")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="meetups_joined", verbose_name="gebruiker"
    )
    created_at = models.DateTimeField("gaat mee sinds", default=timezone.now)

    class Meta:
        verbose_name = "deelnemer aan een plonsafspraak"
        verbose_name_plural = "deelnemers aan plonsafspraken"
        ordering = ["created_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["meetup", "user"], name="meetup_participant_once")]
        indexes = [models.Index(fields=["user", "created_at"], name="meetup_participant_user_idx")]

    def __str__(self):
        return f"{self.user} gaat mee naar {self.meetup}"


REPLY_MAX_LENGTH = 300


class Reply(models.Model):
    """A short message under a plonsafspraak or a club event ("Ik ben 5 minuten later"): text only, shown newest
    last with the writer's name. Under exactly one of the two (a check constraint). Events sit below samen plonsen
    in the layers, so the reply points at the event, never the other way round. Goes with its writer's account,
    its afspraak and its event (cascade)."""

    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="replies_written", verbose_name="schrijver"
    )
    meetup = models.ForeignKey(
        Meetup, on_delete=models.CASCADE, null=True, blank=True, related_name="replies", verbose_name="afspraak"
    )
    event = models.ForeignKey(
        "events.Event", on_delete=models.CASCADE, null=True, blank=True, related_name="replies", verbose_name="event"
    )
    text = models.CharField("tekst", max_length=REPLY_MAX_LENGTH)
    created_at = models.DateTimeField("geschreven op", default=timezone.now)

    class Meta:
        verbose_name = "reactie"
        verbose_name_plural = "reacties"
        ordering = ["created_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(meetup__isnull=False, event__isnull=True) | Q(meetup__isnull=True, event__isnull=False),
                name="reply_under_one_thing",
            ),
            models.CheckConstraint(condition=~Q(text=""), name="reply_text_not_empty"),
        ]
        indexes = [
            models.Index(fields=["meetup", "created_at"], name="reply_meetup_idx", condition=Q(meetup__isnull=False)),
            models.Index(fields=["event", "created_at"], name="reply_event_idx", condition=Q(event__isnull=False)),
            models.Index(fields=["author", "created_at"], name="reply_author_idx"),
        ]

    def __str__(self):
        return f"{self.author} om {timezone.localtime(self.created_at):%Y-%m-%d %H:%M}: {self.text[:40]}"
