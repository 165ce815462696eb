from django.conf import settings
from django.db import models


class PostalAddress(models.Model):
    """Where a member's physical badges go. Optional, only for that purpose, seen only by admins."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="postal_address", verbose_name="gebruiker"
    )
    recipient = models.CharField("t.a.v.", max_length=150, blank=True)
    street = models.CharField("straat en huisnummer", max_length=200)
    postcode = models.CharField("postcode", max_length=20)
    city = models.CharField("plaats", max_length=100)
    country = models.CharField("land", max_length=60, default="Nederland")
    updated_at = models.DateTimeField("bijgewerkt op", auto_now=True)

    class Meta:
        # The table it had in apps.challenges, where the model began: moved without copying the rows.
        db_table = "challenges_postaladdress"
        verbose_name = "postadres"
        verbose_name_plural = "postadressen"

    def __str__(self):
        return f"{self.street}, {self.postcode} {self.city}"

    @property
    def lines(self) -> list[str]:
        """The address as it goes on a label."""
        first = self.recipient.strip() or self.user.full_name.strip()
        return [line for line in (first, self.street, f"{self.postcode} {self.city}", self.country) if line.strip()]
