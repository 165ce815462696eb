import datetime

from django import forms
from django.utils import timezone

from .models import NOTE_MAX_LENGTH, PLACE_MAX_LENGTH

# What <input type="datetime-local"> sends (with or without seconds).
WHEN_FORMATS = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M"]


def parse_when(value: str | None) -> datetime.datetime | None:
    """The local date and time of the form, on the club's clock; None when it is not one."""
    text = (value or "").strip()
    if len(text) > 40:
        return None
    for fmt in WHEN_FORMATS:
        try:
            moment = datetime.datetime.strptime(text, fmt)
        except ValueError:
            continue
        if not 2000 <= moment.year <= 2999:
            return None
        return timezone.make_aware(moment)
    return None


class MeetupForm(forms.Form):
    """ "Nieuwe plonsafspraak". Only reads the fields; the rules (and their messages) are meetup_check's."""

    starts_at = forms.CharField(label="Wanneer", required=False)
    place = forms.CharField(label="Waar", required=False, strip=True, max_length=PLACE_MAX_LENGTH * 4)
    note = forms.CharField(label="Opmerking", required=False, strip=True, max_length=NOTE_MAX_LENGTH * 4)
