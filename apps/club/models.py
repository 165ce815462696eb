"""The club feed's own data: each member's sharing choice, the Brrr! reactions and the items an admin hid.

A feed item is named by its kind and the id of the row it shows ("dip", 12): the feed's sources
(apps/club/feed.py) say which kinds there are. Reactions and hidden items point at an item that way, so a new
kind of item (a plonsafspraak, a club message) needs no new table here.
"""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

ITEM_KIND_MAX_LENGTH = 20


class ClubSharing(models.Model):
    """ "Deel mijn plonsen met de club": off until the member chooses. Without a row the member was never asked."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="club_sharing", verbose_name="lid"
    )
    share_dips = models.BooleanField("deel mijn plonsen met de club", default=False)
    chosen_at = models.DateTimeField("gekozen op", default=timezone.now)

    class Meta:
        verbose_name = "keuze om te delen"
        verbose_name_plural = "keuzes om te delen"
        indexes = [models.Index(fields=["user"], name="clubsharing_sharing_idx", condition=Q(share_dips=True))]

    def __str__(self):
        return f"{self.user}: {'deelt' if self.share_dips else 'deelt niet'}"


class Brrr(models.Model):
    """One member's Brrr! on one feed item. Once per member and item (the database says so)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="brrrs_given", verbose_name="van"
    )
    kind = models.CharField("soort", max_length=ITEM_KIND_MAX_LENGTH)
    object_id = models.BigIntegerField("id")
    # Whose item it was when the Brrr! was given: they hear about it (batched, apps/club/notices.py).
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="brrrs_received",
        verbose_name="voor",
    )
    created_at = models.DateTimeField("gegeven op", default=timezone.now)
    noticed_at = models.DateTimeField("gemeld op", null=True, blank=True)

    class Meta:
        verbose_name = "Brrr!"
        verbose_name_plural = "Brrr!s"
        constraints = [models.UniqueConstraint(fields=["user", "kind", "object_id"], name="brrr_once_per_item")]
        indexes = [
            models.Index(fields=["kind", "object_id"], name="brrr_item_idx"),
            models.Index(fields=["owner"], name="brrr_unnoticed_idx", condition=Q(noticed_at__isnull=True)),
        ]

    def __str__(self):
        return f"Brrr! van {self.user} op {self.kind}:{self.object_id}"


class HiddenItem(models.Model):
    """An item an admin took out of the feed: it never shows to anyone again."""

    kind = models.CharField("soort", max_length=ITEM_KIND_MAX_LENGTH)
    object_id = models.BigIntegerField("id")
    hidden_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name="verborgen door",
    )
    hidden_at = models.DateTimeField("verborgen op", default=timezone.now)

    class Meta:
        verbose_name = "verborgen item"
        verbose_name_plural = "verborgen items"
        constraints = [models.UniqueConstraint(fields=["kind", "object_id"], name="hidden_item_once")]

    def __str__(self):
        return f"{self.kind}:{self.object_id}"
