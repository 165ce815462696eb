"""/admin/clubbericht/: an admin writes a message to every member. The worker tells each member the way
they chose (push on their devices, or mail); the page shows beforehand how many get it which way."""

from django import forms
from django.contrib import messages
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from apps.accounts.access import organiser_required
from apps.audit.services import AuditMeta
from apps.core.errors import DomainError
from apps.notifications.selectors import club_message_audience, latest_club_messages
from apps.notifications.services import CLUB_BODY_MAX, CLUB_TITLE_MAX, club_message_send

MESSAGE_SENT = "Je clubbericht is verstuurd: {push} per push en {mail} per e-mail."


class ClubMessageForm(forms.Form):
    title = forms.CharField(label="Titel", max_length=CLUB_TITLE_MAX)
    body = forms.CharField(
        label="Bericht",
        max_length=CLUB_BODY_MAX,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text=f"Hoogstens {CLUB_BODY_MAX} tekens. Leden zien het op hun dashboard en als melding of e-mail.",
    )


@organiser_required
@require_http_methods(["GET", "HEAD", "POST"])
def club_message(request):
    form = ClubMessageForm(request.POST if request.method == "POST" else None)
    audience = club_message_audience()
    if request.method == "POST" and form.is_valid():
        try:
            club_message_send(
                author=request.user,
                title=form.cleaned_data["title"],
                body=form.cleaned_data["body"],
                meta=AuditMeta.from_request(request),
            )
        except DomainError as error:
            for field, message in error.fields.items():
                form.add_error(field if field in form.fields else None, message)
            if not error.fields:
                form.add_error(None, error.message)
        else:
            messages.success(request, MESSAGE_SENT.format(push=audience.push, mail=audience.mail))
            return redirect("adminpanel_club_message")
    context = {"form": form, "audience": audience, "recent": latest_club_messages(5)}
    return render(request, "adminpanel/club_message.html", context, status=400 if form.errors else 200)
