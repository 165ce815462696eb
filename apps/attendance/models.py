"""Who was at an event, ticked by the organiser ("Was erbij"), and the dip that put on their card."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from apps.challenges.models import Dip
from apps.events.models import Event

SHORE_FIRST_NAME_MAX_LENGTH = 40


class Attendance(models.Model):
    """One member who was at one event. `dip` is the dip the sign-off stamped on their active card (None when
    nothing could be stamped: no active card, a dip already that day); `signed_off_by` is the organiser, named
    on that dip as "Afgetekend door {organisator}"."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="attendance", verbose_name="event")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="attendances", verbose_name="lid"
    )
    dip = models.OneToOneField(
        Dip, on_delete=models.SET_NULL, null=True, blank=True, related_name="attendance", verbose_name="plons"
    )
    signed_off_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name="afgetekend door",
    )
    created_at = models.DateTimeField("afgetekend op", default=timezone.now)

    class Meta:
        verbose_name = "aanwezigheid"
        verbose_name_plural = "aanwezigheid"
        ordering = ["created_at", "pk"]
        constraints = [models.UniqueConstraint(fields=["event", "user"], name="one_attendance_per_user_and_event")]

    def __str__(self):
        return f"{self.user} was bij {self.event}"


class ShoreList(models.Model):
    """ "Aan de waterkant" of one club swim: who went into the water and who came out, kept for the day of the
    swim only (`forget_shore_times` removes it, with its swimmers, after that day: then only attendance remains).
    `closed_at`: "Iedereen is eruit", said when the list agreed; a later tap opens it again."""

    event = models.OneToOneField(Event, on_delete=models.CASCADE, related_name="shore_list", verbose_name="event")
    closed_at = models.DateTimeField("iedereen eruit om", null=True, blank=True)
    created_at = models.DateTimeField("begonnen op", default=timezone.now)

    class Meta:
        verbose_name = "lijst aan de waterkant"
        verbose_name_plural = "lijsten aan de waterkant"

    def __str__(self):
        return f"Waterkant van {self.event}"


class ShoreSwimmer(models.Model):
    """One swimmer on a shore list: a member, a guest who signed up with the guest link, or a guest the organiser
    added on the spot by first name (`spot_key`: the phone's id for them, so that adding them twice, offline and
    again, is one row). Each time keeps the latest tap of its kind, and whichever of the two is later says where
    the swimmer is: so two phones agree on the later tap whatever order their taps arrive in, and a tap sent
    twice changes nothing."""

    shore_list = models.ForeignKey(ShoreList, on_delete=models.CASCADE, related_name="swimmers", verbose_name="lijst")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="shore_swims",
        verbose_name="lid",
    )
    guest = models.ForeignKey(
        "events.EventGuest", on_delete=models.CASCADE, null=True, blank=True, related_name="+", verbose_name="gast"
    )
    spot_key = models.UUIDField("sleutel van de telefoon", null=True, blank=True)
    first_name = models.CharField("voornaam", max_length=SHORE_FIRST_NAME_MAX_LENGTH, blank=True)
    went_in_at = models.DateTimeField("het water in om", null=True, blank=True)
    came_out_at = models.DateTimeField("eruit om", null=True, blank=True)

    class Meta:
        verbose_name = "zwemmer aan de waterkant"
        verbose_name_plural = "zwemmers aan de waterkant"
        constraints = [
            models.CheckConstraint(
                condition=(
                    Q(user__isnull=False, guest__isnull=True, spot_key__isnull=True, first_name="")
                    | Q(user__isnull=True, guest__isnull=False, spot_key__isnull=True, first_name="")
                    | (Q(user__isnull=True, guest__isnull=True, spot_key__isnull=False) & ~Q(first_name=""))
                ),
                name="shore_swimmer_is_member_guest_or_spot_guest",
            ),
            models.UniqueConstraint(fields=["shore_list", "user"], name="one_shore_row_per_member"),
            models.UniqueConstraint(fields=["shore_list", "guest"], name="one_shore_row_per_guest"),
            models.UniqueConstraint(fields=["shore_list", "spot_key"], name="one_shore_row_per_spot_key"),
        ]

    def __str__(self):
        return f"Zwemmer {self.pk} aan de waterkant"

    @property
    def in_water(self) -> bool:
        return in_water(self.went_in_at, self.came_out_at)


def in_water(went_in_at, came_out_at) -> bool:
    """In the water: went in, and the latest "eruit" is older than the latest "in het water"."""
    return went_in_at is not None and (came_out_at is None or came_out_at < went_in_at)
