import { useState } from "react";
import { postForm } from "../lib/api";
import { REFUSAL } from "../lib/refusal-codes";
import { ConfirmDialog } from "../ui/dialog";
import { DT } from "./details-texts";
import { dipUrl } from "./dip-url";
import { T } from "./texts";
import type { Dip, StampCardData, UndoDipResponse } from "./types";

export interface DipUndoDialogProps {
  dip: Dip;
  endpoint: string;
  onUndone: (card: StampCardData, message: string) => void;
  /** The server refused (`tooLate`: the undo window is over, or it is no longer the latest) or could not be reached. */
  onRefused: (message: string, tooLate: boolean) => void;
  onClose: () => void;
}

/** "Plons ongedaan maken?": asks first, then lets the server take the dip back (it judges the window). */
export function DipUndoDialog({ dip, endpoint, onUndone, onRefused, onClose }: DipUndoDialogProps) {
  const [busy, setBusy] = useState(false);
  const undo = async () => {
    setBusy(true);
    const result = await postForm<UndoDipResponse>(dipUrl(endpoint, dip.id), new FormData());
    setBusy(false);
    onClose();
    if (result.ok) onUndone(result.data.card, result.data.message);
    else onRefused(result.status === 0 ? T.networkError : result.message, result.body?.code === REFUSAL.undoTooLate);
  };
  return (
    <ConfirmDialog
      open
      title={DT.undoTitle}
      confirmLabel={T.undo}
      destructive
      busy={busy}
      busyLabel={DT.undoing}
      onConfirm={() => void undo()}
      onCancel={onClose}
    >
      <p>{DT.undoBody(dip.number)}</p>
    </ConfirmDialog>
  );
}
