from django.conf import settings
from django.db import models
from django.db.models import F, Q, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

CODE_LENGTH = 8
# The codes this app makes are CODE_LENGTH of [A-Z0-9]; codes moved in from the original app (apps/moving_in)
# may have another shape and keep working, so the stored shape is this wider one (the sign-up form's limit).
STORED_CODE_MAX_LENGTH = 32
STORED_CODE_PATTERN = rf"^[A-Z0-9_-]{{4,{STORED_CODE_MAX_LENGTH}}}$"
VALID_DAYS = 30
# The admin table's e-mail order: a generic code (no address) sorts as "", so every row has a value to page on.
EMAIL_SORT_KEY = Coalesce(F("email"), Value(""))


class Invitation(models.Model):
    class Status(models.TextChoices):
        ACTIVE = "active", "Actief"
        USED = "used", "Gebruikt"
        EXPIRED = "expired", "Verlopen"

    code = models.CharField("code", max_length=STORED_CODE_MAX_LENGTH, unique=True)
    email = models.EmailField("e-mailadres", blank=True, null=True)
    invited_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="invitations_sent",
        verbose_name="uitgenodigd door",
    )
    created_at = models.DateTimeField("aangemaakt op", default=timezone.now)
    expires_at = models.DateTimeField("verloopt op")
    used_at = models.DateTimeField("gebruikt op", null=True, blank=True)
    used_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="invitation_used",
        verbose_name="gebruikt door",
    )

    class Meta:
        verbose_name = "uitnodiging"
        verbose_name_plural = "uitnodigingen"
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(condition=Q(code__regex=STORED_CODE_PATTERN), name="invitation_code_stored_shape"),
            # A user can be set only on a used invitation (the user may later be deleted).
            models.CheckConstraint(
                condition=Q(used_by__isnull=True) | Q(used_at__isnull=False), name="invitation_used_by_needs_used_at"
            ),
            models.CheckConstraint(
                condition=Q(expires_at__gt=models.F("created_at")), name="invitation_expires_after_created"
            ),
        ]
        indexes = [
            models.Index(fields=["email"], name="invitation_email_idx"),
            models.Index(fields=["expires_at"], name="invitation_unused_expiry_idx", condition=Q(used_at__isnull=True)),
            # The admin table: one index per sort order (with the id as tie-break), read from its start or
            # from the cursor's row, so a page costs the same at any size.
            models.Index(fields=["code", "id"], name="invitation_code_sort_idx"),
            models.Index(fields=["created_at", "id"], name="invitation_created_sort_idx"),
            models.Index(fields=["expires_at", "id"], name="invitation_expires_sort_idx"),
            models.Index(EMAIL_SORT_KEY, F("id"), name="invitation_email_sort_idx"),
        ]

    def __str__(self):
        return self.code

    def status_at(self, moment) -> "Invitation.Status":
        if self.used_at is not None:
            return self.Status.USED
        if self.expires_at <= moment:
            return self.Status.EXPIRED
        return self.Status.ACTIVE

    @property
    def status(self) -> "Invitation.Status":
        return self.status_at(timezone.now())
