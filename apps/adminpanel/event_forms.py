"""The organiser's forms on /admin/events: they read and check the input; the rules are in apps.events.services."""

import datetime

from django import forms
from django.utils import timezone

from apps.events.models import CANCEL_REASON_MAX_LENGTH, LOCATION_MAX_LENGTH, TITLE_MAX_LENGTH, Event
from apps.events.services import EventDetails

MESSAGE_REQUIRED = "Dit veld is verplicht."
MESSAGE_BAD_DATE = "Vul een geldige datum in."
MESSAGE_BAD_TIME = "Vul een geldige tijd in, zoals 11:00."
MESSAGE_BAD_NUMBER = "Vul een heel getal in."
MESSAGE_MAXIMUM_TOO_HIGH = "Het maximum is hoogstens 10000."

SCOPE_ONE = "dit"
SCOPE_FOLLOWING = "volgende"
SCOPE_CHOICES = [(SCOPE_ONE, "Alleen dit event"), (SCOPE_FOLLOWING, "Dit event en de volgende van de reeks")]


def _date_field(label: str, *, required: bool = True) -> forms.DateField:
    return forms.DateField(
        label=label,
        required=required,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
        error_messages={"required": MESSAGE_REQUIRED, "invalid": MESSAGE_BAD_DATE},
    )


class EventForm(forms.Form):
    """Nieuw event and Bewerken. `repeat_until` only on a new event; `scope` only on an event of a series."""

    title = forms.CharField(label="Titel", max_length=TITLE_MAX_LENGTH, error_messages={"required": MESSAGE_REQUIRED})
    date = _date_field("Datum")
    time = forms.TimeField(
        label="Tijd",
        widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"),
        error_messages={"required": MESSAGE_REQUIRED, "invalid": MESSAGE_BAD_TIME},
    )
    location = forms.CharField(label="Verzamelpunt / plek", max_length=LOCATION_MAX_LENGTH, required=False)
    description = forms.CharField(label="Omschrijving", required=False, widget=forms.Textarea(attrs={"rows": 4}))
    max_participants = forms.IntegerField(
        label="Maximum deelnemers",
        required=False,
        min_value=1,
        max_value=10000,
        help_text="Leeg: geen maximum.",
        error_messages={
            "invalid": MESSAGE_BAD_NUMBER,
            "min_value": "Het maximum is minstens 1 (of laat het leeg voor geen maximum).",
            "max_value": MESSAGE_MAXIMUM_TOO_HIGH,
        },
    )
    open_for_guests = forms.BooleanField(
        label="Open voor gasten",
        required=False,
        help_text="Gasten zonder account melden zich aan via een deelbare link (bijvoorbeeld in WhatsApp); "
        "ze tellen mee voor het maximum.",
    )
    guest_limit = forms.IntegerField(
        label="Maximum gasten",
        required=False,
        min_value=1,
        max_value=10000,
        help_text="Hoeveel gasten er hoogstens via de gastenlink bij mogen. Leeg: geen apart maximum.",
        error_messages={
            "invalid": MESSAGE_BAD_NUMBER,
            "min_value": "Het maximum aantal gasten is minstens 1 (of laat het leeg voor geen apart maximum).",
            "max_value": MESSAGE_MAXIMUM_TOO_HIGH,
        },
    )
    repeat_until = _date_field("Herhaal elke week tot", required=False)
    scope = forms.ChoiceField(
        label="Wat pas je aan?", choices=SCOPE_CHOICES, initial=SCOPE_ONE, widget=forms.RadioSelect, required=False
    )

    def __init__(self, *args, event: Event | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("title", "location"):
            self.fields[name].error_messages["max_length"] = "Hoogstens %(limit_value)d tekens (nu %(show_value)d)."
        if event is None:
            del self.fields["scope"]
            self.fields["repeat_until"].help_text = "Optioneel: maakt een reeks, elke week op dezelfde dag en tijd."
        else:
            del self.fields["repeat_until"]
            if event.series_id is None:
                del self.fields["scope"]
            local = timezone.localtime(event.event_date)
            self.initial = {
                **self.initial,
                "title": event.title,
                "date": local.date(),
                "time": local.time().replace(second=0, microsecond=0),
                "location": event.location,
                "description": event.description,
                "max_participants": event.max_participants,
                "open_for_guests": event.open_for_guests,
                "guest_limit": event.guest_limit,
            }

    def details(self) -> EventDetails:
        data = self.cleaned_data
        starts_at = timezone.make_aware(datetime.datetime.combine(data["date"], data["time"]))
        return EventDetails(
            title=data["title"],
            starts_at=starts_at,
            location=data.get("location") or "",
            description=data.get("description") or "",
            max_participants=data.get("max_participants"),
            open_for_guests=bool(data.get("open_for_guests")),
            guest_limit=data.get("guest_limit"),
        )

    @property
    def following(self) -> bool:
        return self.cleaned_data.get("scope") == SCOPE_FOLLOWING


class CancelForm(forms.Form):
    reason = forms.CharField(
        label="Reden",
        max_length=CANCEL_REASON_MAX_LENGTH,
        error_messages={"required": "Vul een reden in: die krijgen de deelnemers te lezen."},
    )
    scope = forms.ChoiceField(choices=SCOPE_CHOICES, required=False)
