"""The Django admin of club challenges and who joined them, through the club challenge services."""

from django.contrib import admin
from django.core.exceptions import ValidationError
from django.db.models import Count

from apps.core.admin_widgets import ReadableAutocompleteMixin
from apps.core.admin_writes import ServiceDeleteAdmin, ServiceMadeForm

from ..models import ClubChallenge, ClubChallengeEntry
from ..services.club_challenges import (
    ClubChallengeInvalid,
    ClubChallengeSpec,
    club_challenge_create,
    club_challenge_delete,
    club_challenge_join,
    club_challenge_leave,
)
from ..services.errors import ChallengeError


class ClubChallengeAddForm(ServiceMadeForm):
    """A new club challenge through `club_challenge_create`, the service /admin/clubchallenges uses: the same
    rules, refused as normal form errors. The art is uploaded on /admin/clubchallenges."""

    class Meta:
        model = ClubChallenge
        fields = ["name", "description", "starts_on", "ends_on", "kind", "target"]

    def clean(self):
        cleaned = super().clean() or {}
        if self.errors:
            return cleaned
        spec = ClubChallengeSpec(
            name=cleaned.get("name") or "",
            description=cleaned.get("description") or "",
            starts_on=cleaned["starts_on"],
            ends_on=cleaned["ends_on"],
            kind=cleaned.get("kind") or "",
            target=cleaned.get("target"),
        )
        try:
            self.instance = club_challenge_create(spec=spec)
        except ClubChallengeInvalid as error:
            raise ValidationError(list(error.fields.values())) from error
        return cleaned


@admin.register(ClubChallenge)
class ClubChallengeAdmin(ServiceDeleteAdmin):
    """Dated club challenges; made here or on /admin/clubchallenges, never changed afterwards (the members'
    progress hangs on the period and the goal), deleted only while nobody takes part."""

    list_display = ["name", "kind", "target", "starts_on", "ends_on", "participants"]
    list_filter = ["kind"]
    search_fields = ["name"]
    form = ClubChallengeAddForm

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(participant_total=Count("entries"))

    @admin.display(description="deelnemers", ordering="participant_total")
    def participants(self, obj):
        return obj.participant_total

    def save_model(self, request, obj, form, change):
        """Nothing to do: the add form's club_challenge_create saved it."""

    def has_change_permission(self, request, obj=None):
        return False

    def delete_through_service(self, request, obj):
        try:
            club_challenge_delete(club_challenge_id=obj.pk)
        except ChallengeError as error:
            raise ValidationError(str(error)) from error


class ClubChallengeEntryAddForm(ServiceMadeForm):
    """A member joined on their behalf through `club_challenge_join` (idempotent, their dips count at once)."""

    class Meta:
        model = ClubChallengeEntry
        fields = ["club_challenge", "user"]

    def clean(self):
        cleaned = super().clean() or {}
        challenge, user = cleaned.get("club_challenge"), cleaned.get("user")
        if challenge is not None and user is not None:
            try:
                self.instance = club_challenge_join(user=user, club_challenge_id=challenge.pk).entry
            except ChallengeError as error:
                raise ValidationError(str(error)) from error
        return cleaned


@admin.register(ClubChallengeEntry)
class ClubChallengeEntryAdmin(ReadableAutocompleteMixin, ServiceDeleteAdmin):
    """Who takes part; completion follows the dips (club_progress), never set by hand."""

    list_display = ["user", "club_challenge", "joined_at", "completed_at"]
    list_filter = ["club_challenge"]
    search_fields = ["user__email", "user__full_name", "club_challenge__name"]
    list_select_related = ["user", "club_challenge"]
    autocomplete_fields = ["user"]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = ClubChallengeEntryAddForm
            kwargs["fields"] = ["club_challenge", "user"]
        return super().get_form(request, obj, change=change, **kwargs)

    def save_model(self, request, obj, form, change):
        """Nothing to do: the add form's club_challenge_join saved it."""

    def has_change_permission(self, request, obj=None):
        return False

    def delete_through_service(self, request, obj):
        try:
            club_challenge_leave(user=obj.user, club_challenge_id=obj.club_challenge_id)
        except ChallengeError as error:
            raise ValidationError(str(error)) from error
