"""Dated club challenges on /admin: the list (who takes part, how far a club goal is) and a new one, made here
and not only in the Django admin. A page of its own, like the physical badges: rendered on every visit."""

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from apps.accounts.access import admin_required
from apps.challenges.admin import BadgeArtField
from apps.challenges.models import ClubChallenge
from apps.challenges.selectors import club_challenges_admin
from apps.challenges.services.club_challenges import (
    ClubChallengeInvalid,
    ClubChallengeSpec,
    club_challenge_create,
    club_challenge_delete,
    club_challenge_errors,
)
from apps.challenges.services.errors import ChallengeError
from apps.core.numbers import whole_number

MESSAGE_CREATED = "Clubchallenge {name} aangemaakt."
MESSAGE_DELETED = "Clubchallenge verwijderd."
MESSAGE_DATE = "Vul een geldige datum in."
MESSAGE_TARGET = "Vul een heel getal in."


class ClubChallengeForm(forms.Form):
    name = forms.CharField(label="Naam", max_length=120)
    description = forms.CharField(label="Omschrijving", required=False, widget=forms.Textarea(attrs={"rows": 3}))
    starts_on = forms.DateField(
        label="Van", widget=forms.DateInput(attrs={"type": "date"}), error_messages={"invalid": MESSAGE_DATE}
    )
    ends_on = forms.DateField(
        label="Tot en met", widget=forms.DateInput(attrs={"type": "date"}), error_messages={"invalid": MESSAGE_DATE}
    )
    kind = forms.ChoiceField(
        label="Soort",
        choices=[
            (ClubChallenge.Kind.EVERY_DAY, "Elke dag (elke dag van de periode)"),
            (ClubChallenge.Kind.DAYS, "Aantal dagen (N dagen van de periode)"),
            (ClubChallenge.Kind.CLUB_GOAL, "Clubdoel (N plonsen samen, door iedereen die meedoet)"),
        ],
        widget=forms.RadioSelect,
        initial=ClubChallenge.Kind.EVERY_DAY,
    )
    target = forms.IntegerField(
        label="N (dagen of plonsen)",
        required=False,
        min_value=1,
        help_text="Niet nodig bij Elke dag.",
        error_messages={"invalid": MESSAGE_TARGET},
    )
    badge_image_upload = BadgeArtField(label="Badge-afbeelding (optioneel)", help_text="PNG, JPEG of WebP (geen SVG).")

    def clean(self):
        data = super().clean()
        if self.errors:
            return data
        spec = self.spec()
        for name, message in club_challenge_errors(spec).items():
            self.add_error(name, message)
        return data

    def spec(self) -> ClubChallengeSpec:
        data = self.cleaned_data
        return ClubChallengeSpec(
            name=data["name"],
            description=data.get("description", ""),
            starts_on=data["starts_on"],
            ends_on=data["ends_on"],
            kind=data["kind"],
            target=data.get("target"),
            image_png=data.get("badge_image_upload"),
        )


@admin_required
@require_http_methods(["GET", "HEAD", "POST"])
def club_challenges(request):
    form = ClubChallengeForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        try:
            challenge = club_challenge_create(spec=form.spec())
        except ClubChallengeInvalid as error:
            for name, message in error.fields.items():
                form.add_error(name if name in form.fields else None, message)
        else:
            messages.success(request, MESSAGE_CREATED.format(name=challenge.name))
            return redirect("adminpanel_club_challenges")
    status = 400 if form.is_bound else 200
    return render(
        request,
        "adminpanel/club_challenges.html",
        {"form": form, "club_challenges": club_challenges_admin()},
        status=status,
    )


@admin_required
@require_POST
def club_challenge_remove(request):
    try:
        club_challenge_delete(club_challenge_id=whole_number(request.POST.get("club_challenge_id")) or 0)
    except ChallengeError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, MESSAGE_DELETED)
    return redirect("adminpanel_club_challenges")
