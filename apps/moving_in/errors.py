from apps.core.errors import DomainError

from .refusals import MovingInRefusal


class ImportRefused(DomainError):
    """The import cannot start or was stopped; nothing was written. The message is Dutch, for the club's admin."""


class EmailConflicts(ImportRefused):
    """Addresses of the old app that already have an account here (`--on-conflict refuse`)."""

    def __init__(self, emails: list[str]):
        self.emails = emails
        listed = "\n".join(f"  - {email}" for email in emails)
        super().__init__(
            f"{len(emails)} e-mailadres(sen) uit de oude app hebben hier al een account. Er is niets "
            f"geïmporteerd. Kies --on-conflict skip (overslaan) of --on-conflict merge (samenvoegen):\n{listed}",
            code=MovingInRefusal.EMAIL_CONFLICTS,
        )
