"""The Django admin of the catalogue: challenges and their badges (art uploaded and processed here)."""

import dataclasses

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Count
from django.forms.models import BaseInlineFormSet
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.html import format_html

from ..badge_art import badge_art_process
from ..models import Badge, Challenge
from ..photos import PhotoError
from ..services.catalogue import (
    MESSAGE_TARGET_TOO_LOW,
    BadgeSpec,
    challenge_delete,
    challenge_rules_check,
    challenge_save,
)
from ..services.errors import ChallengeError

UPLOAD_HELP = "PNG, JPEG of WebP (geen SVG). Vervangt de huidige afbeelding."


class BadgeArtField(forms.FileField):
    """An uploaded badge image, checked and re-encoded on validation: cleaned_data holds the PNG bytes."""

    def __init__(self, **kwargs):
        kwargs.setdefault("required", False)
        kwargs.setdefault("help_text", UPLOAD_HELP)
        kwargs.setdefault("widget", forms.ClearableFileInput(attrs={"accept": "image/png,image/jpeg,image/webp"}))
        super().__init__(**kwargs)

    def clean(self, data, initial=None):
        upload = super().clean(data, initial)
        if not upload or upload is initial:
            return None
        try:
            return badge_art_process(upload)
        except PhotoError as error:
            raise forms.ValidationError(str(error)) from error


def _preview(url: str):
    if not url:
        return "-"
    return format_html('<img src="{}" alt="" width="64" height="64">', url)


class ChallengeForm(forms.ModelForm):
    badge_image_upload = BadgeArtField(label="badge-afbeelding uploaden")
    target_dips = forms.IntegerField(
        label="doel (plonsen)", min_value=1, max_value=1000, error_messages={"min_value": MESSAGE_TARGET_TOO_LOW}
    )

    class Meta:
        model = Challenge
        fields = ["name", "description", "category", "target_dips", "badge_image_url", "is_active"]


class BadgeForm(forms.ModelForm):
    image_upload = BadgeArtField(label="afbeelding uploaden")

    class Meta:
        model = Badge
        fields = ["milestone_dips", "name", "description", "image_url"]


class BadgeInlineFormSet(BaseInlineFormSet):
    """Checks the whole set against the (possibly changed) target: the service checks again under its lock."""

    def validate_unique(self):
        """Two badges at one milestone: said by challenge_rules_check below, in Dutch, with the number."""

    def clean(self):
        super().clean()
        if any(self.errors):
            return
        milestones = [
            form.cleaned_data.get("milestone_dips")
            for form in self.forms
            if form.cleaned_data and not form.cleaned_data.get("DELETE")
        ]
        challenge_rules_check(target_dips=self.instance.target_dips, milestones=milestones)


def badge_spec(form) -> BadgeSpec:
    data = form.cleaned_data
    existing = data.get("id")
    return BadgeSpec(
        id=existing.pk if existing else None,
        name=data.get("name", ""),
        description=data.get("description", ""),
        milestone_dips=data.get("milestone_dips") or 0,
        image_url=data.get("image_url", ""),
        image_png=data.get("image_upload"),
        delete=bool(data.get("DELETE")),
    )


class BadgeInline(admin.StackedInline):
    # Stacked, not a table: six columns made the form 1,800 px wide and hid the upload on a phone, and
    # every field keeps a visible label of its own.
    model = Badge
    form = BadgeForm
    formset = BadgeInlineFormSet
    extra = 1  # a new challenge starts with a row for its first badge
    fields = ["milestone_dips", "name", "description", "preview", "image_url", "image_upload"]
    readonly_fields = ["preview"]

    @admin.display(description="huidige afbeelding")
    def preview(self, obj):
        return _preview(obj.image_src) if obj and obj.pk else "-"


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):
    """Every write goes through challenge_save / challenge_delete, which hold the catalogue's rules."""

    form = ChallengeForm
    list_display = ["name", "category", "target_dips", "badge_count", "is_active"]
    list_filter = ["category", "is_active"]
    search_fields = ["name", "description"]
    fields = ["name", "description", "category", "target_dips", "preview", "badge_image_url", "badge_image_upload"]
    fields += ["is_active"]
    readonly_fields = ["preview"]
    inlines = [BadgeInline]
    actions = None  # bulk delete would pass the service by

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(badge_total=Count("badges"))

    @admin.display(description="badges", ordering="badge_total")
    def badge_count(self, obj):
        return obj.badge_total

    @admin.display(description="huidige afbeelding")
    def preview(self, obj):
        return _preview(obj.badge_image_src) if obj and obj.pk else "-"

    def save_model(self, request, obj, form, change):
        """Saved together with its badges in save_related, in one service call."""

    def save_related(self, request, form, formsets, change):
        specs = [badge_spec(f) for formset in formsets for f in formset.forms if f.cleaned_data and f.has_changed()]
        challenge_save(challenge=form.instance, badges=specs, image_png=form.cleaned_data.get("badge_image_upload"))
        for formset in formsets:  # the admin's history message reads these; the service did the saving
            formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except ValidationError as error:  # the rules changed under the form (another admin saved first)
            messages.error(request, " ".join(error.messages))
            return redirect(request.get_full_path())

    def delete_model(self, request, obj):
        challenge_delete(challenge_id=obj.pk)

    def delete_view(self, request, object_id, extra_context=None):
        try:
            return super().delete_view(request, object_id, extra_context)
        except ChallengeError as error:  # a member started it between the confirmation page and the click
            messages.error(request, str(error))
            return redirect(reverse("admin:challenges_challenge_change", args=[object_id]))


class BadgeAdminForm(BadgeForm):
    class Meta(BadgeForm.Meta):
        fields = ["challenge", *BadgeForm.Meta.fields]

    def clean(self):
        super().clean()
        cleaned = self.cleaned_data
        challenge, milestone = cleaned.get("challenge"), cleaned.get("milestone_dips")
        if challenge is not None and milestone is not None:
            others = Badge.objects.filter(challenge=challenge).exclude(pk=self.instance.pk)
            milestones = [*others.values_list("milestone_dips", flat=True), milestone]
            challenge_rules_check(target_dips=challenge.target_dips, milestones=milestones)
        return cleaned


@admin.register(Badge)
class BadgeAdmin(admin.ModelAdmin):
    """A badge on its own: the same service as the challenge page, so the same rules."""

    form = BadgeAdminForm
    list_display = ["name", "challenge", "milestone_dips", "image_url"]
    list_filter = ["challenge"]
    search_fields = ["name"]
    list_select_related = ["challenge"]
    fields = ["challenge", "milestone_dips", "name", "description", "image_url", "image_upload"]
    actions = None

    def save_model(self, request, obj, form, change):
        spec = badge_spec(form)
        challenge = Challenge.objects.get(pk=obj.challenge_id)
        challenge_save(challenge=challenge, badges=[dataclasses.replace(spec, id=obj.pk)])
        obj.pk = Badge.objects.get(challenge=challenge, milestone_dips=spec.milestone_dips).pk

    def delete_model(self, request, obj):
        challenge = Challenge.objects.get(pk=obj.challenge_id)
        challenge_save(challenge=challenge, badges=[BadgeSpec(id=obj.pk, delete=True)])

    def delete_view(self, request, object_id, extra_context=None):
        try:
            return super().delete_view(request, object_id, extra_context)
        except ValidationError as error:  # earned in the meantime
            messages.error(request, " ".join(error.messages))
            return redirect(reverse("admin:challenges_badge_change", args=[object_id]))
