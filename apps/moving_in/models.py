"""The import's bookkeeping: which object of the original app became which object here.

One row per imported object, so a second run recognises what it already brought in (and adds nothing), and
the photo pass knows which dip waits for which file. The old ids are personal data kept for no purpose once
the club is happy: `import_supabase_forget` deletes them all (docs/operations.md, "Moving in from the original app").
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class ImportedObject(models.Model):
    class Kind(models.TextChoices):
        USER = "user", "Lid"
        CHALLENGE = "challenge", "Challenge"
        BADGE = "badge", "Badge"
        CARD = "card", "Kaart"
        DIP = "dip", "Plons"
        AWARD = "award", "Verdiende badge"
        INVITATION = "invitation", "Uitnodiging"
        EVENT = "event", "Event"
        PARTICIPANT = "participant", "Deelnemer"

    class PhotoStatus(models.TextChoices):
        WAITING = "waiting", "Wacht op de fotoronde"
        DONE = "done", "Overgezet"
        MISSING = "missing", "Bestand ontbreekt"
        BROKEN = "broken", "Bestand onleesbaar"

    kind = models.CharField("soort", max_length=20, choices=Kind.choices)
    old_id = models.CharField("id in de oude app", max_length=64)
    new_id = models.BigIntegerField("id hier")
    # The member the object belongs to: the bookkeeping leaves with the account.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        verbose_name="lid",
    )
    imported_at = models.DateTimeField("geïmporteerd op", default=timezone.now)
    # A dip's photo: its key in the old bucket (`<user id>/<timestamp>.<ext>`) and how far the photo pass got.
    photo_key = models.CharField("foto in de oude bucket", max_length=500, blank=True, default="")
    photo_status = models.CharField("foto", max_length=10, choices=PhotoStatus.choices, blank=True, default="")
    # A member: the first sign-in here (a merged account counts as signed in). /admin counts who has none yet.
    first_sign_in_at = models.DateTimeField("eerste keer ingelogd", null=True, blank=True)

    class Meta:
        verbose_name = "geïmporteerd object"
        verbose_name_plural = "geïmporteerde objecten"
        constraints = [models.UniqueConstraint(fields=["kind", "old_id"], name="imported_object_once")]
        indexes = [
            models.Index(fields=["kind", "new_id"], name="imported_object_new_idx"),
            models.Index(
                fields=["photo_status", "id"], name="imported_photo_waiting_idx", condition=Q(photo_status="waiting")
            ),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} {self.old_id} → {self.new_id}"
