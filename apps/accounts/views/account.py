"""/account: the member's own page. Each feature adds its section to templates/accounts/account.html."""

from django.contrib.auth.decorators import login_required
from django.shortcuts import render


@login_required
def account_page(request):
    return render(request, "accounts/account.html")
