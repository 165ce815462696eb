"""The unsubscribe link of every mail (RFC 8058 one-click, no sign-in) and the member's mail choices."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.shortcuts import redirect, render
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST

from .links import UnsubscribeScope
from .registry import kind_of
from .services import MailError, mail_preference_set, mail_unsubscribe

MESSAGE_PREFERENCES_SAVED = "Je e-mailvoorkeuren zijn opgeslagen."
UNSUBSCRIBED_TEXTS = {
    UnsubscribeScope.EVENT_MAILS: "Je krijgt geen e-mail meer over events (wachtlijst en herinneringen).",
    UnsubscribeScope.DIP_NUDGE: "Je krijgt geen herinnering meer als je 14 dagen niet hebt geplonsd.",
    UnsubscribeScope.INVITATIONS: "Dit e-mailadres krijgt geen uitnodigingen meer.",
    UnsubscribeScope.CLUB_NOTICES: "Je krijgt geen e-mail meer als clubgenoten je een Brrr! geven.",
}


# The mail program posts "List-Unsubscribe=One-Click" from outside the site, without a session or a CSRF
# token (RFC 8058): the signed token in the URL is the credential, and it can only turn mail off.
@csrf_exempt
@require_http_methods(["GET", "HEAD", "POST"])
def unsubscribe(request, token: str):
    if request.method != "POST":
        # A GET only shows the button: link checkers and previews open links, and must not unsubscribe.
        return render(request, "notifications/unsubscribe.html", {"token": token, "done": False})
    try:
        scope = mail_unsubscribe(token=token)
    except MailError as error:
        return render(request, "notifications/unsubscribe.html", {"error": str(error)}, status=400)
    return render(request, "notifications/unsubscribe.html", {"done": True, "text": unsubscribed_text(scope)})


def unsubscribed_text(scope: str) -> str:
    if scope in UNSUBSCRIBED_TEXTS:
        return UNSUBSCRIBED_TEXTS[scope]
    # A kind's own choice (UnsubscribeScope.of_kind): named as on /account.
    return f"Je krijgt dit niet meer: {kind_of(scope.removeprefix(UnsubscribeScope.KIND)).label}."


@login_required
@require_POST
def preferences_update(request):
    # A checkbox that is not ticked is not sent: absent means off.
    mail_preference_set(
        user=request.user,
        event_mails=request.POST.get("event_mails") == "on",
        dip_nudge=request.POST.get("dip_nudge") == "on",
    )
    messages.success(request, MESSAGE_PREFERENCES_SAVED)
    return redirect("/account#herinneringen")  # the section of the form (the answer shows there)
