from django.contrib.auth.decorators import login_required
from django.shortcuts import render
from django.views.decorators.http import require_safe

from .charts import statistics_charts
from .selectors import statistics_for


@login_required
@require_safe
def statistics(request):
    stats = statistics_for(request.user)
    return render(request, "logbook/statistics.html", {"stats": stats, "charts": statistics_charts(stats)})
