import { useEffect, useId, useRef, type ReactNode } from "react";
import { Button } from "./button";
import { keepTabInside } from "./focus-trap";

export interface ConfirmDialogProps {
  open: boolean;
  title: string;
  /** Body text under the title. */
  children?: ReactNode;
  confirmLabel: string;
  cancelLabel?: string;
  /** A red confirm button, for deleting or stopping. */
  destructive?: boolean;
  /** Disables both buttons while the action runs; shows `busyLabel` on the confirm button. */
  busy?: boolean;
  busyLabel?: ReactNode;
  onConfirm: () => void;
  /** Called by the cancel button, Escape and a click on the backdrop. */
  onCancel: () => void;
}

/** A modal confirmation built on `<dialog>` (focus trap and Escape come from the browser). */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  cancelLabel = "Annuleren",
  destructive = false,
  busy = false,
  busyLabel,
  onConfirm,
  onCancel,
}: ConfirmDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null) return;
    if (open && !dialog.open) {
      if (typeof dialog.showModal === "function") dialog.showModal();
      else dialog.setAttribute("open", "");
    } else if (!open && dialog.open) {
      if (typeof dialog.close === "function") dialog.close();
      else dialog.removeAttribute("open");
    }
  }, [open]);

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      aria-describedby={children === undefined ? undefined : bodyId}
      onCancel={(event) => {
        // Escape: let React state decide whether the dialog closes.
        event.preventDefault();
        if (!busy) onCancel();
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget && !busy) onCancel();
      }}
      onKeyDown={(event) => keepTabInside(event.nativeEvent, event.currentTarget)}
    >
      <div>
        <h2 id={titleId} className="dialog-title">
          {title}
        </h2>
        {children !== undefined && (
          <div id={bodyId} className="dialog-body">
            {children}
          </div>
        )}
        <div className="dialog-actions">
          <Button variant="secondary" onClick={onCancel} disabled={busy}>
            {cancelLabel}
          </Button>
          <Button
            variant={destructive ? "danger" : "primary"}
            onClick={onConfirm}
            busy={busy}
            busyLabel={busyLabel}
          >
            {confirmLabel}
          </Button>
        </div>
      </div>
    </dialog>
  );
}
