"""Mail the app sends by itself, and what members (and invited addresses) chose to receive.

A `Mail` row is written in the same transaction as the change that causes it (an invitation, a
place from the waitlist, a reminder run); a background task sends it and records the outcome. The
text is rendered when it is sent, from the rows it points at, so no mail body is stored twice and
deleting an account or an invitation deletes its mails with it.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Mail(models.Model):
    class Kind(models.TextChoices):
        INVITATION = "invitation", "Uitnodiging"
        WAITLIST_PROMOTION = "waitlist_promotion", "Van de wachtlijst gehaald"
        EVENT_REMINDER = "event_reminder", "Herinnering voor een event"
        DIP_NUDGE = "dip_nudge", "Herinnering na 14 dagen zonder plons"
        # The member's own account: answers to what they just did, never with an unsubscribe link.
        EMAIL_CONFIRMATION = "email_confirmation", "Nieuw e-mailadres bevestigen"
        EMAIL_CHANGED = "email_changed", "E-mailadres gewijzigd"
        EXPORT_READY = "export_ready", "Je gegevens staan klaar"
        # allauth's mails (password reset): rendered in the request, sent by the worker like every other mail.
        ACCOUNT = "account", "Accountmail"

    class Status(models.TextChoices):
        QUEUED = "queued", "In de wachtrij"
        SENT = "sent", "Verstuurd"
        FAILED = "failed", "Mislukt"
        # The address asked for no more mail of this kind: kept, so the admin sees why nothing went out.
        SUPPRESSED = "suppressed", "Afgemeld"

    kind = models.CharField("soort", max_length=30, choices=Kind.choices)
    to_email = models.EmailField("aan")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="mails",
        verbose_name="lid",
    )
    invitation = models.OneToOneField(
        "invitations.Invitation",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="mail",
        verbose_name="uitnodiging",
    )
    # The event a mail is about, as a plain id: notifications sits below events, so no foreign key up into it.
    # Events reads it (apps.notifications.messages.event_reader_register) and deletes an event's mails with
    # the event (apps.events.signals).
    event_id = models.BigIntegerField("event", null=True, blank=True, db_index=True)
    # The new address a confirmation link is for: a request replaced by a newer one takes its unsent mail along.
    email_address = models.ForeignKey(
        "account.EmailAddress",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name="nieuw e-mailadres",
    )
    # Scheduled mails carry a key that says what they are about ("event-reminder:<event>:<user>"); the
    # unique constraint makes a second run of the cron command, or two at once, send nothing twice.
    dedupe_key = models.CharField("sleutel", max_length=120, unique=True, null=True, blank=True)
    # Only for mails rendered before they are queued (allauth's): the text holds a reset key, so it is
    # kept only until the mail is sent or given up.
    subject = models.CharField("onderwerp", max_length=255, blank=True)
    body_text = models.TextField("tekst", blank=True)
    body_html = models.TextField("html", blank=True)
    status = models.CharField("status", max_length=20, choices=Status.choices, default=Status.QUEUED)
    attempts = models.PositiveSmallIntegerField("pogingen", default=0)
    last_error = models.CharField("laatste fout", max_length=500, blank=True)
    created_at = models.DateTimeField("aangemaakt op", default=timezone.now)
    updated_at = models.DateTimeField("bijgewerkt op", default=timezone.now)
    sent_at = models.DateTimeField("verstuurd op", null=True, blank=True)

    class Meta:
        verbose_name = "e-mail"
        verbose_name_plural = "e-mails"
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["updated_at"], name="mail_failed_idx", condition=Q(status="failed")),
            models.Index(fields=["updated_at"], name="mail_queued_idx", condition=Q(status="queued")),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} aan {self.to_email}"


class MailPreference(models.Model):
    """A member's choices. Without a row the defaults hold: event mails on, the 14-day nudge off."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_preference", verbose_name="lid"
    )
    event_mails = models.BooleanField("mail over mijn events", default=True)
    dip_nudge = models.BooleanField("herinnering na 14 dagen zonder plons", default=False)
    updated_at = models.DateTimeField("bijgewerkt op", default=timezone.now)

    class Meta:
        verbose_name = "e-mailvoorkeur"
        verbose_name_plural = "e-mailvoorkeuren"

    def __str__(self):
        return str(self.user)


class InvitationOptOut(models.Model):
    """An address that asked, through the link in an invitation mail, never to get one again."""

    email = models.EmailField("e-mailadres", unique=True)
    created_at = models.DateTimeField("afgemeld op", default=timezone.now)

    class Meta:
        verbose_name = "afmelding voor uitnodigingen"
        verbose_name_plural = "afmeldingen voor uitnodigingen"

    def __str__(self):
        return self.email
