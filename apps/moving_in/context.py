"""What one import run carries from entity to entity: the report, the choices, and the old → new ids."""

import datetime
from dataclasses import dataclass, field

from .models import ImportedObject
from .report import Report

Kind = ImportedObject.Kind


@dataclass
class ImportContext:
    report: Report
    on_conflict: str
    now: datetime.datetime
    # --merge-duplicates: a second old account with the same address (other capitals) joins the oldest.
    merge_duplicates: bool = False
    # Per kind, old id → new id: what earlier runs brought in (read once at the start) and this run adds.
    known: dict[str, dict[str, int]] = field(default_factory=dict)
    # Old member id → new member id, for every member whose things are imported (new, earlier or merged).
    members: dict[str, int] = field(default_factory=dict)
    # Members whose dips changed: their counts are refreshed at the end.
    touched_members: set[int] = field(default_factory=set)
    bookkeeping: list[ImportedObject] = field(default_factory=list)

    def load_known(self) -> None:
        self.known = {kind: {} for kind in Kind.values}
        rows = ImportedObject.objects.values_list("kind", "old_id", "new_id").iterator(chunk_size=5000)
        for kind, old_id, new_id in rows:
            self.known[kind][old_id] = new_id

    def seen(self, kind: str, old_id) -> int | None:
        return self.known[kind].get(str(old_id))

    def remember(self, kind: str, old_id, new_id: int, *, user_id: int | None = None, **extra) -> None:
        self.known[kind][str(old_id)] = new_id
        self.bookkeeping.append(
            ImportedObject(kind=kind, old_id=str(old_id), new_id=new_id, user_id=user_id, imported_at=self.now, **extra)
        )
