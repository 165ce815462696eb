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

from .registry import validate_kind


class Delivery(models.Model):
    """What an outbox row (a `Mail`, a `Notice`) carries to be delivered exactly once: claimed by a run, sent with
    no row lock held, its outcome recorded while the claim is still the run's, a dead run's claim recovered. The
    one path that does so is apps/notifications/outbox.py; each table keeps its own status choices and indexes."""

    attempts = models.PositiveSmallIntegerField("pogingen", default=0)
    last_error = models.CharField("laatste fout", max_length=500, blank=True)
    created_at = models.DateTimeField("aangemaakt op", default=timezone.now)
    sent_at = models.DateTimeField("verstuurd op", null=True, blank=True)
    # Claimed by a delivery run (status 'sending'): when, and the run's token (the key of the advisory lock it
    # holds while it lives; apps/notifications/claims.py).
    claimed_at = models.DateTimeField("geclaimd op", null=True, blank=True)
    claim_token = models.BigIntegerField("claim", null=True, blank=True)

    class Meta:
        abstract = True


class Mail(Delivery):
    class Status(models.TextChoices):
        QUEUED = "queued", "In de wachtrij"
        # Claimed by a delivery run, which is talking to the mail server right now (services/delivery.py).
        SENDING = "sending", "Wordt verstuurd"
        SENT = "sent", "Verstuurd"
        FAILED = "failed", "Mislukt"
        # The address asked for no more mail of this kind: kept, so the admin sees why nothing went out.
        SUPPRESSED = "suppressed", "Afgemeld"

    # A kind of message the registry knows (apps.notifications.registry): declared by the app that sends it.
    kind = models.CharField("soort", max_length=30, validators=[validate_kind])
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
    # Events reads it (the context of its kinds, apps/events/notices.py) and deletes an event's mails with the
    # event (apps.events.signals).
    event_id = models.BigIntegerField("event", null=True, blank=True, db_index=True)
    # The event guest a mail is to (no account), as a plain id like `event_id`: deleted with the guest
    # (apps.events.signals).
    guest_id = models.BigIntegerField("gast", null=True, blank=True, db_index=True)
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
    # Only for mails rendered before they are queued (allauth's: the text holds a reset key), and for a notice
    # told by mail as its own title and text (a kind without a mail of its own: subject, body_text and `link`,
    # rendered by the worker): kept only until the mail is sent or given up.
    subject = models.CharField("onderwerp", max_length=255, blank=True)
    body_text = models.TextField("tekst", blank=True)
    body_html = models.TextField("html", blank=True)
    link = models.CharField("link", max_length=500, blank=True, default="", db_default="")
    status = models.CharField("status", max_length=20, choices=Status.choices, default=Status.QUEUED)
    updated_at = models.DateTimeField("bijgewerkt op", default=timezone.now)

    class Meta:
        verbose_name = "e-mail"
        verbose_name_plural = "e-mails"
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["updated_at"], name="mail_failed_idx", condition=Q(status="failed")),
            models.Index(fields=["updated_at"], name="mail_queued_idx", condition=Q(status="queued")),
            # Recovery looks at the claims: few among many sent.
            models.Index(fields=["claim_token"], name="mail_sending_idx", condition=Q(status="sending")),
        ]

    def __str__(self):
        return f"{self.kind} aan {self.to_email}"


class MailPreference(models.Model):
    """A member's choices. Without a row the defaults hold: event mails on, the 14-day nudge off, the club's
    Brrr! notices on."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mail_preference", verbose_name="lid"
    )
    event_mails = models.BooleanField("mail over mijn events", default=True)
    dip_nudge = models.BooleanField("herinnering na 14 dagen zonder plons", default=False)
    club_notices = models.BooleanField("mail als clubgenoten Brrr! geven", default=True)
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


class Channel(models.TextChoices):
    """How a member wants one kind of notice: on their devices, by mail, or not at all."""

    PUSH = "push", "Push"
    MAIL = "mail", "Mail"
    OFF = "off", "Uit"


class PushSubscription(models.Model):
    """One browser (one phone or computer) that may receive Web Push for a member (RFC 8030).

    The endpoint is the push service's URL for that browser; `p256dh` and `auth` are the browser's keys
    the payload is encrypted for (RFC 8291). An endpoint belongs to one browser, so it is unique: a phone
    handed to another member, who subscribes again, moves the row to them.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions", verbose_name="lid"
    )
    endpoint = models.URLField("endpoint", max_length=1000, unique=True)
    p256dh = models.CharField("publieke sleutel", max_length=200)
    auth = models.CharField("auth-geheim", max_length=100)
    device_label = models.CharField("apparaat", max_length=100, blank=True)
    created_at = models.DateTimeField("aangemaakt op", default=timezone.now)
    last_seen_at = models.DateTimeField("laatst gezien op", default=timezone.now)

    class Meta:
        verbose_name = "pushabonnement"
        verbose_name_plural = "pushabonnementen"
        ordering = ["-last_seen_at", "-pk"]

    def __str__(self):
        return f"{self.device_label or 'Apparaat'} van {self.user}"


class NoticePreference(models.Model):
    """A member's choice for one kind of notice (apps.notifications.registry); without a row the kind's default
    holds."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notice_preferences", verbose_name="lid"
    )
    kind = models.CharField("soort", max_length=40, validators=[validate_kind])
    channel = models.CharField("hoe", max_length=10, choices=Channel.choices)
    updated_at = models.DateTimeField("bijgewerkt op", default=timezone.now)

    class Meta:
        verbose_name = "meldingvoorkeur"
        verbose_name_plural = "meldingvoorkeuren"
        constraints = [
            models.UniqueConstraint(fields=["user", "kind"], name="notice_preference_once_per_kind"),
            models.CheckConstraint(condition=Q(channel__in=["push", "mail", "off"]), name="notice_preference_channel"),
        ]

    def __str__(self):
        return f"{self.user}: {self.kind} {self.channel}"


class Notice(Delivery):
    """One notice to one member, sent by push to each of their devices (in the worker).

    Written in the caller's transaction; the worker delivers it. A device that answers 404/410 is gone
    (its subscription is deleted); 429 and 5xx are tried again later; a notice that reached no device falls
    back to mail for kinds that have a mail fallback.
    """

    class Status(models.TextChoices):
        QUEUED = "queued", "In de wachtrij"
        SENDING = "sending", "Wordt verstuurd"
        SENT = "sent", "Verstuurd"
        RETRY = "retry", "Later opnieuw"
        MAILED = "mailed", "Per e-mail"
        FAILED = "failed", "Niet bezorgd"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="notices", verbose_name="lid"
    )
    kind = models.CharField("soort", max_length=40, validators=[validate_kind])
    title = models.CharField("titel", max_length=200)
    body = models.CharField("tekst", max_length=1000)
    url = models.CharField("link", max_length=500, default="/dashboard")
    # How many notices this one stands for (a batched kind: a busy morning of reactions is one notice).
    count = models.PositiveIntegerField("aantal", default=1)
    event_id = models.BigIntegerField("event", null=True, blank=True)
    dedupe_key = models.CharField("sleutel", max_length=120, unique=True, null=True, blank=True)
    status = models.CharField("status", max_length=10, choices=Status.choices, default=Status.QUEUED)
    send_after = models.DateTimeField("niet voor", default=timezone.now)

    class Meta:
        verbose_name = "melding"
        verbose_name_plural = "meldingen"
        ordering = ["-created_at", "-pk"]
        indexes = [
            models.Index(fields=["user", "kind"], name="notice_open_idx", condition=Q(status="queued")),
            # Recovery looks at claims and at notices waiting too long: both few among many sent.
            models.Index(fields=["claim_token"], name="notice_sending_idx", condition=Q(status="sending")),
            models.Index(fields=["send_after"], name="notice_waiting_idx", condition=Q(status__in=["queued", "retry"])),
        ]

    def __str__(self):
        return f"{self.title} aan {self.user}"


class ClubMessage(models.Model):
    """A message an admin sends to every member (/admin/clubbericht/): a notice to each, and shown on the
    dashboard."""

    title = models.CharField("titel", max_length=120)
    body = models.TextField("bericht", max_length=2000)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="club_messages",
        verbose_name="schrijver",
    )
    created_at = models.DateTimeField("verstuurd op", default=timezone.now, db_index=True)

    class Meta:
        verbose_name = "clubbericht"
        verbose_name_plural = "clubberichten"
        ordering = ["-created_at", "-pk"]

    def __str__(self):
        return self.title
