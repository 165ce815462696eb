from django.conf import settings
from django.db import models
from django.utils import timezone

from .actions import AuditAction

# The kinds of object a row can name, as the log page says them.
TARGET_NAMES = {
    "user": "lid",
    "event": "event",
    "dip": "plons",
    "badge": "badge",
    "club_message": "clubbericht",
    "reply": "reactie",
}


class AuditEntry(models.Model):
    """One admin or organiser action on other members' data: who, what, when, from where. No names or
    addresses of the members it touched: the action's code and the id of what it was about. Written only by
    `audit_record` (in the action's transaction), removed only by `audit_prune` after AUDIT_KEEP_DAYS."""

    at = models.DateTimeField("wanneer", default=timezone.now, db_index=True)
    action = models.CharField("wat", max_length=40, choices=AuditAction.choices)
    # The actor's account while it exists; the label keeps who it was after it is gone ("manage.py" for
    # the operator's commands on the server).
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+", verbose_name="wie"
    )
    actor_label = models.CharField("wie (toen)", max_length=254)
    target_type = models.CharField("soort", max_length=30, blank=True, default="")
    target_id = models.BigIntegerField("nummer", null=True, blank=True)
    detail = models.CharField("bijzonderheid", max_length=100, blank=True, default="")  # never personal data
    ip = models.GenericIPAddressField("vanaf", null=True, blank=True)

    class Meta:
        verbose_name = "logboekregel"
        verbose_name_plural = "logboek van beheer"
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["-at", "-id"], name="audit_at_idx"),
            models.Index(fields=["action", "-at", "-id"], name="audit_action_idx"),
            models.Index(fields=["actor", "-at", "-id"], name="audit_actor_idx"),
        ]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M} {self.actor_label} {self.action}"

    @property
    def target_label(self) -> str:
        """What the row is about, in Dutch: "lid 12", "event 3"."""
        if not self.target_type:
            return ""
        name = TARGET_NAMES.get(self.target_type, self.target_type)
        return f"{name} {self.target_id}" if self.target_id is not None else name
