"""/account: the member's own page. Each feature adds its section to templates/accounts/account.html."""

from django.contrib.auth.decorators import login_required
from django.views.decorators.http import require_safe

from apps.core.page_cache import Page, cached_page


def _site(request) -> tuple:
    """The calendar link in a section is absolute: one page per address the site is reached at."""
    return (request.scheme, request.get_host())


@login_required
@require_safe
# Every section shows the member's own data (each write to it declares the member scope: profile, e-mail,
# mail choices, calendar link, postal address, export, passkeys and factors); a section the clock ends
# says so (page_valid_until). A refused form renders this template itself, with its messages, uncached.
@cached_page(template="accounts/account.html", vary=_site)
def account_page(request):
    return Page({})
