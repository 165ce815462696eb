import { useEffect, useState } from "react";
import { postForm } from "../lib/api";
import { ConfirmDialog } from "../ui/dialog";
import type { ShowToastOptions } from "../ui/toast";
import { DEFAULT_LIMITS } from "./dip-details";
import { DipEditDialog, dipUrl } from "./dip-edit";
import { T } from "./texts";
import type { Dip, StampCardData, UndoDipResponse } from "./types";

/** Milliseconds until `until` (ISO), or 0 when it has passed or is unknown. */
export function msLeft(until: string | undefined, now = Date.now()): number {
  if (until === undefined) return 0;
  const end = Date.parse(until);
  return Number.isNaN(end) ? 0 : Math.max(0, end - now);
}

export interface DipActionsProps {
  dip: Dip;
  /** The card's latest dip: only that one can be undone (within its window; the server judges). */
  latest: boolean;
  card: StampCardData;
  busy: boolean;
  onSaved: (dip: Dip) => void;
  onUndone: (card: StampCardData) => void;
  showToast: (text: string, options?: ShowToastOptions) => number;
}

/** "Details aanpassen" on each recent dip, and "Ongedaan maken" on the latest for 10 minutes. */
export function DipActions({ dip, latest, card, busy, onSaved, onUndone, showToast }: DipActionsProps) {
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [undoing, setUndoing] = useState(false);
  const [undoOpen, setUndoOpen] = useState(() => latest && msLeft(dip.undoUntil) > 0);
  const { updateDip, undoDip } = card.endpoints;

  // The button goes when the window closes, without a reload.
  useEffect(() => {
    const left = latest ? msLeft(dip.undoUntil) : 0;
    setUndoOpen(left > 0);
    if (left === 0) return;
    const timer = setTimeout(() => setUndoOpen(false), left);
    return () => clearTimeout(timer);
  }, [latest, dip.undoUntil]);

  const undo = async () => {
    if (undoDip === undefined) return;
    setUndoing(true);
    const result = await postForm<UndoDipResponse>(dipUrl(undoDip, dip.id), new FormData());
    setUndoing(false);
    setConfirming(false);
    if (result.ok) {
      showToast(result.data.message, { kind: "success" });
      onUndone(result.data.card);
    } else {
      if (result.status === 409) setUndoOpen(false);
      showToast(result.status === 0 ? T.networkError : result.message, { kind: "error" });
    }
  };

  return (
    <span className="dd-actions">
      {updateDip !== undefined && (
        <button
          type="button"
          className="sc-link"
          disabled={busy}
          aria-label={`${T.editDetails}: ${T.dipLine(dip.number, dip.dipDateDisplay)}`}
          onClick={() => setEditing(true)}
        >
          {T.editDetails}
        </button>
      )}
      {undoDip !== undefined && undoOpen && (
        <button
          type="button"
          className="sc-link"
          disabled={busy || undoing}
          aria-label={`${T.undo}: ${T.dipLine(dip.number, dip.dipDateDisplay)}`}
          onClick={() => setConfirming(true)}
        >
          {T.undo}
        </button>
      )}
      {editing && updateDip !== undefined && (
        <DipEditDialog
          dip={dip}
          endpoint={updateDip}
          limits={card.conditionLimits ?? DEFAULT_LIMITS}
          suggestions={card.spotSuggestions ?? []}
          safetyNote={card.safetyNote ?? ""}
          onSaved={(saved, message) => {
            onSaved(saved);
            showToast(message, { kind: "success" });
          }}
          onError={(message) => showToast(message, { kind: "error" })}
          onClose={() => setEditing(false)}
        />
      )}
      {confirming && (
        <ConfirmDialog
          open
          title={T.undoTitle}
          confirmLabel={T.undo}
          destructive
          busy={undoing}
          busyLabel={T.undoing}
          onConfirm={() => void undo()}
          onCancel={() => setConfirming(false)}
        >
          <p>{T.undoBody(dip.number)}</p>
        </ConfirmDialog>
      )}
    </span>
  );
}
