from apps.audit.actions import AuditAction
from apps.audit.services import AuditMeta, audit_record


def exported(request, action: AuditAction, rows: int) -> None:
    """A download of other members' data is recorded in the audit log: who, when, from where, how many rows."""
    audit_record(meta=AuditMeta.from_request(request), action=action, detail=f"{rows} rijen")
