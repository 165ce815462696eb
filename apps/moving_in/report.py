"""What the import found and did: per entity found, imported (or would be), already imported, skipped with
the reason, and every anomaly of the old data. Dutch text for the terminal, JSON for --report.

Never a password or a hash in here: the report is read, mailed and kept by people.
"""

import json
from collections import Counter
from dataclasses import dataclass, field

# The entities in the order the report lists them, with their Dutch names.
ENTITIES = {
    "users": "Leden",
    "roles": "Adminrollen",
    "challenges": "Challenges",
    "badges": "Badges",
    "cards": "Kaarten",
    "dips": "Plonsen",
    "awards": "Verdiende badges",
    "invitations": "Uitnodigingen",
    "events": "Events",
    "participants": "Deelnemers van events",
    "photos": "Foto's",
}

# Anomalies of the old data (it did not enforce its own rules), with what the import did about them.
ANOMALIES = {
    "email_conflict": "E-mailadres heeft hier al een account",
    "email_duplicate": (
        "E-mailadres komt twee keer voor in de oude app (op hoofdletters na): het oudste account is overgenomen, "
        "het andere niet. Wil het lid de plonsen van beide? Draai de import opnieuw met --merge-duplicates"
    ),
    "email_duplicate_merged": "E-mailadres twee keer in de oude app: samengevoegd in het oudste account",
    "no_password": (
        "Geen bruikbaar wachtwoord: bij het inloggen hoort het lid dat het een nieuw wachtwoord kiest via "
        "'Wachtwoord vergeten?'"
    ),
    "banned": (
        "Geblokkeerd in de oude app: het account staat hier uit. Mag het lid weer meedoen, zet dan in "
        "Django-admin bij Gebruikers het vinkje 'Actief' aan"
    ),
    "name_cut": "Naam langer dan 150 tekens: ingekort. Het lid kan de naam zelf aanpassen onder Ik",
    "two_active_cards": "Meer dan één actieve kaart: de kaart met de meeste plonsen blijft actief",
    "dips_over_target": "Plonsen boven het doel van de kaart: bewaard als plons zonder kaart",
    "completed_short": "Voltooid met minder plonsen dan het doel: blijft voltooid",
    "badge_duplicate": "Dubbele badge op één kaart: de nieuwste telt",
    "badge_missing": "Badge ontbrak terwijl de plonsen hem halen: toegekend",
    "badge_unearned": "Badge zonder genoeg plonsen: niet overgenomen",
    "event_overfull": "Event met meer deelnemers dan het maximum: iedereen blijft aangemeld",
    "invitation_invalid": "Ongeldige uitnodigingscode: niet overgenomen",
    "dip_date_midnight": "Plonsdatum wijkt af van het tijdstip (rond middernacht): de plonsdatum geldt",
    "dip_without_card": "Plons zonder (bekende) kaart: niet overgenomen",
    "photo_missing": "Foto ontbreekt in de bucket: plons blijft zonder foto",
    "photo_broken": "Foto onleesbaar of geen afbeelding: plons blijft zonder foto",
}


@dataclass
class EntityCount:
    found: int = 0
    imported: int = 0
    already: int = 0
    skipped: Counter = field(default_factory=Counter)


@dataclass
class Anomaly:
    kind: str
    old_id: str
    detail: str = ""
    who: str = ""  # what a volunteer recognises: "Naam <e-mail>", "code ABCD2345", an event's title


def person(name: str, email: str) -> str:
    """A member as the report names her: by name and e-mail, never by an old id alone."""
    name = " ".join((name or "").split())
    return f"{name} <{email}>" if name and email else name or email or "(onbekend lid)"


@dataclass
class Report:
    dry_run: bool = False
    entities: dict[str, EntityCount] = field(default_factory=lambda: {name: EntityCount() for name in ENTITIES})
    anomalies: list[Anomaly] = field(default_factory=list)
    # Old member id -> person(): filled as the members are read, so every later anomaly can name its member.
    people: dict[str, str] = field(default_factory=dict)
    # The bucket keys the photo pass will look for (the dips that came in with a photo).
    photo_keys: list[str] = field(default_factory=list)

    def found(self, entity: str, n: int = 1) -> None:
        self.entities[entity].found += n

    def imported(self, entity: str, n: int = 1) -> None:
        self.entities[entity].imported += n

    def already(self, entity: str, n: int = 1) -> None:
        self.entities[entity].already += n

    def skipped(self, entity: str, reason: str, n: int = 1) -> None:
        self.entities[entity].skipped[reason] += n

    def anomaly(self, kind: str, old_id, detail: str = "", *, who: str = "", member=None) -> None:
        """`member`: the old id of the member it concerns, named through `people`."""
        assert kind in ANOMALIES, kind
        if not who and member is not None:
            who = self.people.get(str(member), "")
        self.anomalies.append(Anomaly(kind, str(old_id), detail, who))

    def merge(self, other: "Report") -> None:
        for name, count in other.entities.items():
            mine = self.entities[name]
            mine.found += count.found
            mine.imported += count.imported
            mine.already += count.already
            mine.skipped.update(count.skipped)
        self.anomalies += other.anomalies
        self.photo_keys += other.photo_keys

    @property
    def nothing_new(self) -> bool:
        return not any(count.imported for name, count in self.entities.items() if name != "photos")

    def as_dict(self) -> dict:
        return {
            "dry_run": self.dry_run,
            "entities": {
                name: {
                    "found": count.found,
                    "imported": count.imported,
                    "already_imported": count.already,
                    "skipped": dict(count.skipped),
                }
                for name, count in self.entities.items()
            },
            "anomalies": {
                kind: [{"who": a.who, "old_id": a.old_id, "detail": a.detail} for a in self.anomalies if a.kind == kind]
                for kind in ANOMALIES
                if any(a.kind == kind for a in self.anomalies)
            },
        }

    def as_json(self) -> str:
        return json.dumps(self.as_dict(), ensure_ascii=False, indent=2)

    def as_text(self) -> str:
        verb = "zou importeren" if self.dry_run else "geïmporteerd"
        lines = ["Proefdraai: er is niets geschreven." if self.dry_run else "Import uit de oude app", ""]
        for name, label in ENTITIES.items():
            count = self.entities[name]
            if not (count.found or count.imported or count.already or count.skipped):
                continue
            lines.append(
                f"{label}: {count.found} gevonden, {count.imported} {verb}, {count.already} al eerder geïmporteerd"
            )
            lines += [f"    {n} overgeslagen: {reason}" for reason, n in sorted(count.skipped.items())]
        if self.nothing_new and not self.dry_run:
            lines += ["", "Niets nieuws: alles uit de oude app was al geïmporteerd."]
        by_kind = Counter(a.kind for a in self.anomalies)
        if by_kind:
            lines += ["", "Bijzonderheden in de oude gegevens:"]
            for kind, text in ANOMALIES.items():
                if by_kind[kind]:
                    lines.append(f"  {text}: {by_kind[kind]}")
                    lines += [
                        f"    - {a.who or a.old_id}{': ' + a.detail if a.detail else ''}"
                        for a in self.anomalies
                        if a.kind == kind
                    ][:20]
                    if by_kind[kind] > 20:
                        lines.append(f"    … en {by_kind[kind] - 20} meer (zie --report)")
        return "\n".join(lines)
