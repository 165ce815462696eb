from django.apps import AppConfig


class EventsConfig(AppConfig):
    name = "apps.events"
    verbose_name = "Events"

    def ready(self):
        from apps.notifications.messages import event_reader_register

        from . import signals  # noqa: F401 - connects the receivers
        from .models import Event
        from .notices import notices_register

        # The mails about an event keep only its id (notifications sits below events): this is how they read it.
        event_reader_register(lambda event_id: Event.objects.filter(pk=event_id).first())
        notices_register()
