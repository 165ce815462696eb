"""Background tasks (django-tasks): queued by the services, run by `manage.py db_worker`."""

from django_tasks import task


@task()
def build_member_export(export_id: int, job: str) -> str:
    # Imported here: the services enqueue this task, so importing them at module level would be a cycle.
    from .services import export_build

    return export_build(export_id=export_id, job=job)
