import { ConfirmDialog } from "../ui/dialog";
import { T } from "./texts";

export interface DeleteDialogProps {
  title: string;
  /** What will be deleted; null keeps the dialog closed. */
  body: string | null;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/** 'Verwijderen' or 'Annuleren' for one row of an admin table. */
export function DeleteDialog({ title, body, busy, onConfirm, onCancel }: DeleteDialogProps) {
  return (
    <ConfirmDialog
      open={body !== null}
      title={title}
      confirmLabel={T.deleteConfirm}
      cancelLabel={T.cancel}
      destructive
      busy={busy}
      busyLabel={T.deleting}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      {body}
    </ConfirmDialog>
  );
}
