from django.apps import AppConfig


class AttendanceConfig(AppConfig):
    name = "apps.attendance"
    verbose_name = "Aanwezigheid"
