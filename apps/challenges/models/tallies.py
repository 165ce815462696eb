"""The club's counts, kept by the database as the rows change, so /admin reads a few rows instead of
counting the club's whole history (every dip, every badge) on each render.

The triggers of `apps.challenges.tally_triggers` (installed by migration 0013) keep them, on PostgreSQL and
SQLite alike: every INSERT, DELETE and UPDATE of a dip or an earned badge, whoever writes it (a service, a
cascade from a deleted member, a bulk insert of the load data, a factory in a test), in the transaction of
that write. Nothing in the app writes these tables; the app only reads them (apps/adminpanel).

- `DipWeekTally`: per week (its Monday), the club's dips and the members with at least one dip that week.
- `MemberWeekTally`: per member and week with dips, how many: what tells the week's `members` when a
  member's first dip of a week comes or their last one goes. A row leaves with its last dip; the member is
  a plain id (no foreign key), so a member's deletion leaves these rows to the triggers of their dips.
- `BadgeTally`: per badge and physical status, the badges earned.
"""

from django.db import models


class DipWeekTally(models.Model):
    week = models.DateField("week (maandag)", unique=True)
    dips = models.IntegerField("plonsen", default=0)
    members = models.IntegerField("leden met een plons", default=0)

    class Meta:
        verbose_name = "plonsen per week"
        verbose_name_plural = "plonsen per week"

    def __str__(self):
        return f"week van {self.week}: {self.dips} plonsen, {self.members} leden"


class MemberWeekTally(models.Model):
    user_id = models.BigIntegerField("lid")
    week = models.DateField("week (maandag)")
    dips = models.IntegerField("plonsen", default=0)

    class Meta:
        verbose_name = "plonsen van een lid per week"
        verbose_name_plural = "plonsen van leden per week"
        constraints = [models.UniqueConstraint(fields=["user_id", "week"], name="memberweektally_once")]

    def __str__(self):
        return f"lid {self.user_id}, week van {self.week}: {self.dips}"


class BadgeTally(models.Model):
    badge_id = models.BigIntegerField("badge")
    physical_status = models.CharField("fysieke badge", max_length=20)
    awards = models.IntegerField("verdiend", default=0)

    class Meta:
        verbose_name = "verdiende badges"
        verbose_name_plural = "verdiende badges"
        constraints = [models.UniqueConstraint(fields=["badge_id", "physical_status"], name="badgetally_once")]

    def __str__(self):
        return f"badge {self.badge_id} ({self.physical_status}): {self.awards}"
