"""The conditions of a dip (water temperature, time in the water, spot, note): their limits, their
Dutch messages, reading them from a request and showing them. One home for each; the model's check
constraints and the stamp card island (through its props) use the same numbers.

All four are optional: one tap still registers a dip. Nothing here rewards a longer time in the water.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from apps.core.errors import DomainError
from apps.core.numbers import whole_number

from .refusals import DipRefusal

TEMPERATURE_MIN = Decimal("-2")
TEMPERATURE_MAX = Decimal("35")
DURATION_MIN_SECONDS = 10
DURATION_MAX_SECONDS = 60 * 60
SPOT_MAX_LENGTH = 80
NOTE_MAX_LENGTH = 280

FIELD_NAMES = ("water_temperature", "duration_seconds", "spot", "note")

MESSAGE_TEMPERATURE = "Vul een watertemperatuur in tussen −2 en 35 °C, met hoogstens één decimaal (bijvoorbeeld 4,5)."
MESSAGE_DURATION = "Vul de tijd in het water in als minuten:seconden, tussen 0:10 en 60:00."
MESSAGE_SPOT_TOO_LONG = f"De plek mag hoogstens {SPOT_MAX_LENGTH} tekens lang zijn."
MESSAGE_NOTE_TOO_LONG = f"De notitie mag hoogstens {NOTE_MAX_LENGTH} tekens lang zijn."
# A NUL character (PostgreSQL cannot store it in text) comes only from a script or a broken paste.
MESSAGE_SPOT_BAD_CHARACTER = "De plek bevat een onzichtbaar teken dat niet kan. Typ de plek opnieuw."
MESSAGE_NOTE_BAD_CHARACTER = "De notitie bevat een onzichtbaar teken dat niet kan. Typ de notitie opnieuw."

SAFETY_NOTE = (
    "Zwem nooit alleen, ga eruit voordat je gaat rillen en warm daarna rustig op. "
    "Langer is niet beter: hier telt elke plons even zwaar."
)

# One calm line after a dip in water below ADVICE_COLD_BELOW °C, or without a buddy: advice, never a reward.
ADVICE_COLD_BELOW = 5
ADVICE_COLD = "Water onder de 5 °C: houd het kort, kom eruit voordat je gaat rillen en warm rustig op."
ADVICE_ALONE = "Volgende keer samen? Ga nooit alleen het koude water in en zorg dat iemand op de kant meekijkt."


def dip_advice(*, water_temperature, buddy_count: int) -> str | None:
    """The one line of advice a dip gets (the cold first), or None."""
    if water_temperature is not None and water_temperature < ADVICE_COLD_BELOW:
        return ADVICE_COLD
    if buddy_count == 0:
        return ADVICE_ALONE
    return None


_DURATION_TEXT = re.compile(r"([0-9]{1,2}):([0-5][0-9])")


class ConditionsError(DomainError):
    """One or more conditions are wrong. `errors` maps each field name to its Dutch message; the first one
    is the message (for a toast), each field's shows at its input."""

    def __init__(self, errors: dict[str, str]):
        super().__init__(next(iter(errors.values())), code=DipRefusal.CONDITIONS_INVALID, fields=errors)
        self.errors = errors


@dataclass(frozen=True)
class DipConditions:
    water_temperature: Decimal | None = None
    duration_seconds: int | None = None
    spot: str = ""
    note: str = ""

    def check(self) -> None:
        """Raise ConditionsError when a value is out of its range (also for values made in code)."""
        errors: dict[str, str] = {}
        temperature = self.water_temperature
        if temperature is not None and (
            not temperature.is_finite()
            or not TEMPERATURE_MIN <= temperature <= TEMPERATURE_MAX
            or temperature != temperature.quantize(Decimal("0.1"))
        ):
            errors["water_temperature"] = MESSAGE_TEMPERATURE
        duration = self.duration_seconds
        if duration is not None and not DURATION_MIN_SECONDS <= duration <= DURATION_MAX_SECONDS:
            errors["duration_seconds"] = MESSAGE_DURATION
        if "\x00" in self.spot:
            errors["spot"] = MESSAGE_SPOT_BAD_CHARACTER
        elif len(self.spot) > SPOT_MAX_LENGTH:
            errors["spot"] = MESSAGE_SPOT_TOO_LONG
        if "\x00" in self.note:
            errors["note"] = MESSAGE_NOTE_BAD_CHARACTER
        elif len(self.note) > NOTE_MAX_LENGTH:
            errors["note"] = MESSAGE_NOTE_TOO_LONG
        if errors:
            raise ConditionsError(errors)


def conditions_parse(data: Mapping[str, str]) -> DipConditions:
    """Read the conditions from form fields. Empty or missing means "not logged".

    water_temperature: "4,5" or "4.5". duration_seconds: whole seconds ("150") or "m:ss" ("2:30").
    Raises ConditionsError with a message per wrong field; nothing is stored by the caller then.
    """
    errors: dict[str, str] = {}
    temperature = None
    raw_temperature = (data.get("water_temperature") or "").strip().replace(",", ".").replace("−", "-")
    if raw_temperature:
        try:
            temperature = Decimal(raw_temperature)
        except InvalidOperation:
            errors["water_temperature"] = MESSAGE_TEMPERATURE
    duration = None
    raw_duration = (data.get("duration_seconds") or "").strip()
    if raw_duration:
        duration = _duration_seconds(raw_duration)
        if duration is None:
            errors["duration_seconds"] = MESSAGE_DURATION
    conditions = DipConditions(
        water_temperature=temperature if "water_temperature" not in errors else None,
        duration_seconds=duration,
        spot=" ".join((data.get("spot") or "").split()),
        note=(data.get("note") or "").strip(),
    )
    try:
        conditions.check()
    except ConditionsError as error:
        errors = error.errors | errors
    if errors:
        raise ConditionsError({name: errors[name] for name in FIELD_NAMES if name in errors})
    return conditions


def _duration_seconds(text: str) -> int | None:
    """Whole seconds or m:ss, in ASCII digits ("²" and 5,000 digits are simply not a duration)."""
    seconds = whole_number(text, max_digits=len(str(DURATION_MAX_SECONDS)) + 1)
    if seconds is not None:
        return seconds
    match = _DURATION_TEXT.fullmatch(text)
    if match is None:
        return None
    return int(match.group(1)) * 60 + int(match.group(2))


def temperature_display(value: Decimal | None) -> str:
    """4.5 as "4,5 °C" (Dutch decimal comma)."""
    if value is None:
        return ""
    return f"{value:.1f}".replace(".", ",").replace("-", "−") + " °C"


def duration_display(seconds: int | None) -> str:
    """150 as "2:30"."""
    if seconds is None:
        return ""
    return f"{seconds // 60}:{seconds % 60:02d}"


def conditions_display(*, water_temperature, duration_seconds, spot) -> str:
    """The line under a dip: "4,5 °C · 2:30 · Strand Scheveningen" (the parts that were logged)."""
    parts = [temperature_display(water_temperature), duration_display(duration_seconds), spot]
    return " · ".join(part for part in parts if part)


def limits_props() -> dict:
    """The limits and messages the stamp card's details form checks with before sending (the server checks again)."""
    return {
        "temperatureMin": float(TEMPERATURE_MIN),
        "temperatureMax": float(TEMPERATURE_MAX),
        "durationMinSeconds": DURATION_MIN_SECONDS,
        "durationMaxSeconds": DURATION_MAX_SECONDS,
        "spotMaxLength": SPOT_MAX_LENGTH,
        "noteMaxLength": NOTE_MAX_LENGTH,
        "messages": {
            "water_temperature": MESSAGE_TEMPERATURE,
            "duration_seconds": MESSAGE_DURATION,
            "spot": MESSAGE_SPOT_TOO_LONG,
            "note": MESSAGE_NOTE_TOO_LONG,
        },
    }
