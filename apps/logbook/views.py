from django.contrib.auth.decorators import login_required
from django.http import StreamingHttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from .charts import statistics_charts
from .export import export_filename, export_stream
from .selectors import statistics_for


@login_required
@require_safe
def statistics(request):
    stats = statistics_for(request.user)
    return render(request, "logbook/statistics.html", {"stats": stats, "charts": statistics_charts(stats)})


@login_required
@require_safe
def export(request):
    response = StreamingHttpResponse(export_stream(request.user), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{export_filename()}"'
    response["Cache-Control"] = "private, no-store"
    return response
