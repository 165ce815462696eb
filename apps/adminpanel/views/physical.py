"""The physical badges list: which earned badges still have to be posted, and marking them as sent or handed
over, several at once."""

import datetime
from urllib.parse import urlencode

from django.contrib import messages
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from apps.accounts.access import admin_required
from apps.challenges.models import PhysicalStatus
from apps.challenges.services.errors import ChallengeError
from apps.core.numbers import whole_number
from apps.shipping.selectors import PhysicalFilter
from apps.shipping.services import physical_badges_mark

from ..selectors import physical_badges

MESSAGE_MARKED = "{count} {badges} gemarkeerd als: {status}."
MESSAGE_BAD_DATE = "Vul een geldige datum in."


def physical_list_url(query) -> str:
    """Back to the list with the filter it was sent from (only the filter's own keys travel along)."""
    kept = {key: query[key] for key in ("status", "badge") if query.get(key)}
    return reverse("adminpanel_physical") + (f"?{urlencode(kept)}" if kept else "")


@admin_required
@require_safe
def physical_list(request):
    """Its own page, not a part of /admin: fifty rows with their forms would double the size of that page,
    which every admin opens, while this one is opened when there is something to post."""
    physical_filter = PhysicalFilter.from_query(request.GET)
    context = {
        "physical": physical_badges(physical_filter),
        "physical_filter": physical_filter,
        "physical_statuses": PhysicalStatus.choices,
        "today": timezone.localdate(),
    }
    return render(request, "adminpanel/physical_badges.html", context)


@admin_required
@require_POST
def physical_mark(request):
    back = redirect(
        physical_list_url(
            {"status": request.POST.get("filter_status", ""), "badge": request.POST.get("filter_badge", "")}
        )
    )
    try:
        on = datetime.date.fromisoformat(request.POST["datum"]) if request.POST.get("datum") else None
    except ValueError:
        messages.error(request, MESSAGE_BAD_DATE)
        return back
    award_ids = [pk for value in request.POST.getlist("award") if (pk := whole_number(value)) is not None]
    status = request.POST.get("physical_status", "")
    try:
        count = physical_badges_mark(award_ids=award_ids, status=status, on=on)
    except ChallengeError as error:
        messages.error(request, str(error))
        return back
    label = PhysicalStatus(status).label.lower()
    messages.success(
        request, MESSAGE_MARKED.format(count=count, badges="badge" if count == 1 else "badges", status=label)
    )
    return back
