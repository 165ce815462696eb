"""/club ("De club"): the feed, the sharing choice, Brrr!, an admin hiding an item, a shared photo."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_POST, require_safe

from apps.accounts.access import member_required_action
from apps.audit.services import AuditMeta
from apps.challenges.models import Dip, UserBadge
from apps.challenges.selectors import club_challenges_for
from apps.challenges.views.club import celebration_for
from apps.challenges.views.photos import serve_photo
from apps.core.numbers import whole_number
from apps.core.page_cache import CLUB, CLUB_CHALLENGES, CLUB_MESSAGES, EVENTS, FEED, TOGETHER, Page, cached_page
from apps.core.page_sections import lazy_value
from apps.notifications.services import mail_preference_set

from .badge_image import badge_share_filename, badge_share_png
from .feed import cursor_parse, feed_item
from .refusals import ClubRefusal
from .selectors import club_feed_for, club_sharing_for
from .services import ClubError, brrr_set, club_sharing_set, item_hide

CURSOR_PARAMETER = "na"
MESSAGE_SHARING_ON = "Je plonsen zijn nu te zien in de club."
MESSAGE_SHARING_OFF = "Je plonsen zijn niet (meer) te zien in de club."
MESSAGE_HIDDEN = "Verborgen: niemand ziet dit nog in de club."
MESSAGE_BAD_CHOICE = "Kies ja of nee."
CLUB_URL = "/club"
# Where the sharing form may send the member back to (the form is on /club and on /account).
BACK_TO = {"club": "club", "account": "account", "dashboard": "dashboard"}
# Where the answer shows: the section asked in (the dashboard's first section, _first_dip.html).
SHARING_ANCHORS = {"account": "#club-delen", "dashboard": "#eerste-plons"}


def _today(request) -> tuple:
    return (timezone.localdate(),)


@login_required
@require_safe
# Shared dips and badges move CLUB (every dip service) and FEED (sharing, Brrr!, hiding); events move EVENTS,
# plonsafspraken TOGETHER, club messages CLUB_MESSAGES; the club challenges (joins, club goals, completions)
# CLUB_CHALLENGES. Per day, as a club challenge starts and ends.
@cached_page(
    CLUB,
    EVENTS,
    FEED,
    TOGETHER,
    CLUB_MESSAGES,
    CLUB_CHALLENGES,
    template="club/club.html",
    query=(CURSOR_PARAMETER,),
    vary=_today,
)
def club(request):
    user = request.user
    cursor = cursor_parse(request.GET.get(CURSOR_PARAMETER))
    feed = club_feed_for(user, cursor=cursor)
    return Page(
        {
            # The feed is read on every render (it is what another member's dip changes); each of its items is a
            # section of its own (club/club.html), so a new dip renders one item. The rest is read only by the
            # sections rendered anew (apps/core/page_sections.py).
            "feed": feed,
            "sharing": lazy_value(lambda: _sharing_choice(user)),
            "cursor": cursor.encode() if cursor is not None else "",
            "next_cursor": feed.next_cursor.encode() if feed.next_cursor is not None else "",
            "cursor_parameter": CURSOR_PARAMETER,
            # The club challenges head the first page only: older pages are the feed's history.
            "club_challenges": lazy_value(lambda: club_challenges_for(user)) if cursor is None else [],
            "club_url": CLUB_URL,
            "celebration": celebration_for(request),
        }
    )


def _sharing_choice(user) -> str:
    """ "ja" or "nee", or "" when the member was never asked (a plain value: the template compares it)."""
    sharing = club_sharing_for(user)
    return "" if sharing is None else ("ja" if sharing.share_dips else "nee")


def _item_of(request) -> tuple[str, int]:
    kind, _sep, number = (request.POST.get("item") or "").partition(":")
    object_id = whole_number(number)
    if not kind or object_id is None:
        raise ClubError("Dit bericht bestaat niet (meer).", code=ClubRefusal.ITEM_GONE, status=404)
    return kind, object_id


def _back_to_feed(request, anchor: str = ""):
    cursor = cursor_parse(request.POST.get(CURSOR_PARAMETER))
    url = reverse("club") + (f"?{CURSOR_PARAMETER}={cursor.encode()}" if cursor is not None else "")
    return redirect(url + (f"#{anchor}" if anchor else ""))


@member_required_action(CLUB_URL)
@require_POST
def sharing(request):
    """ "Deel mijn plonsen met de club": ja or nee, from /club (asked once) and from /account."""
    back = BACK_TO.get(request.POST.get("back", ""), "club")
    choice = request.POST.get("share_dips")
    if choice not in ("ja", "nee"):
        messages.error(request, MESSAGE_BAD_CHOICE)
        return redirect(back)
    shared = club_sharing_set(user=request.user, share_dips=choice == "ja")
    if request.POST.get("brrr_mails_shown"):  # the /account form also holds the Brrr! mails
        mail_preference_set(user=request.user, club_notices=bool(request.POST.get("brrr_mails")))
    messages.success(request, MESSAGE_SHARING_ON if shared.share_dips else MESSAGE_SHARING_OFF)
    return redirect(reverse(back) + SHARING_ANCHORS.get(back, ""))


@member_required_action(CLUB_URL)
@require_POST
def brrr(request):
    """Brrr! given (given=1) or taken back (given=0): the state the button showed, so a double tap is harmless."""
    try:
        kind, object_id = _item_of(request)
        brrr_set(user=request.user, kind=kind, object_id=object_id, given=request.POST.get("given") == "1")
    except ClubError as error:
        messages.error(request, error.message)
        return _back_to_feed(request)
    return _back_to_feed(request, anchor=f"item-{kind}-{object_id}")


@member_required_action(CLUB_URL)
@require_POST
def hide(request):
    try:
        kind, object_id = _item_of(request)
        item_hide(actor=request.user, kind=kind, object_id=object_id, meta=AuditMeta.from_request(request))
    except ClubError as error:
        messages.error(request, error.message)
        return _back_to_feed(request)
    messages.success(request, MESSAGE_HIDDEN)
    return _back_to_feed(request)


def _shared_photo(dip_id: int):
    """A dip's photo as the feed shows it: only while its owner shares dips, the photo is shared and no admin
    hid it. Anything else is answered like a missing photo."""
    item = feed_item(kind="dip", object_id=dip_id)
    if item is None or not item.photo_url:
        raise Http404
    return Dip.objects.only("photo", "thumbnail").get(pk=dip_id)


@login_required
@require_safe
def photo(request, dip_id: int):
    return _club_photo_response(serve_photo(_shared_photo(dip_id).photo.name))


@login_required
@require_safe
def thumbnail(request, dip_id: int):
    dip = _shared_photo(dip_id)
    return _club_photo_response(serve_photo(dip.thumbnail.name or dip.photo.name))


def _club_photo_response(response):
    # An unshared photo must stop showing soon: the browser asks again after a few minutes.
    if response.get("Cache-Control", "") != "private, no-store":
        response["Cache-Control"] = "private, max-age=300"
    return response


@login_required
@require_safe
def badge_share(request, award_id: int):
    """ "Deel je badge": the square image of one of the member's own badges. Anyone else's is a 404, admins'
    too: only the badge's owner gets it."""
    award = UserBadge.objects.select_related("badge").filter(pk=award_id, user=request.user).first()
    if award is None:
        raise Http404
    response = HttpResponse(badge_share_png(award), content_type="image/png")
    response["Content-Disposition"] = f'inline; filename="{badge_share_filename(award)}"'
    response["Cache-Control"] = "private, max-age=3600"
    return response
