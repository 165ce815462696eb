from django.contrib import admin
from django_tasks_db.models import DBTaskResult

# The task table is the worker's own bookkeeping (rows it claims and finishes), not something to edit or
# browse by hand: whether a mail went out is on its Mail row, shown in the /admin invitations table.
if admin.site.is_registered(DBTaskResult):
    admin.site.unregister(DBTaskResult)
