import { Suspense, lazy, useEffect, useState } from "react";
import { ChunkBoundary } from "../ui/chunk-boundary";
import { useSay } from "../ui/feedback";
import { T } from "./texts";
import "./dip-summary.css";
import type { Dip, StampCardData } from "./types";

// Loaded when first opened: the stamp card's first load stays within its JavaScript budget.
const DipEditDialog = lazy(() => import("./dip-edit").then((module) => ({ default: module.DipEditDialog })));
const DipUndoDialog = lazy(() => import("./dip-undo-dialog").then((module) => ({ default: module.DipUndoDialog })));

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
}

/**
 * "Details aanpassen" on each recent dip, and "Ongedaan maken" on the latest for 10 minutes. Their answers
 * go to the card's one message line (ui/feedback).
 */
export function DipActions({ dip, latest, card, busy, onSaved, onUndone }: DipActionsProps) {
  const say = useSay();
  const [editing, setEditing] = useState(false);
  const [confirming, setConfirming] = useState(false);
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

  return (
    <span className="dd-actions">
      <button
        type="button"
        className="sc-link"
        disabled={busy}
        aria-label={`${T.editDetails}: ${T.dipLine(dip.number, dip.dipDateDisplay)}`}
        onClick={() => setEditing(true)}
      >
        {T.editDetails}
      </button>
      {undoOpen && (
        <button
          type="button"
          className="sc-link"
          disabled={busy}
          aria-label={`${T.undo}: ${T.dipLine(dip.number, dip.dipDateDisplay)}`}
          onClick={() => setConfirming(true)}
        >
          {T.undo}
        </button>
      )}
      <ChunkBoundary message={T.partNotLoaded} as="span">
        <Suspense fallback={null}>
          {editing && (
            <DipEditDialog
              dip={dip}
              endpoint={updateDip}
              limits={card.conditionLimits}
              suggestions={card.spotSuggestions}
              safetyNote={card.safetyNote}
              maxPhotoBytes={card.photoMaxBytes}
              onSaved={(saved, message) => {
                onSaved(saved);
                say(message, "success");
              }}
              onError={(message) => say(message, "error")}
              onClose={() => setEditing(false)}
            />
          )}
          {confirming && (
            <DipUndoDialog
              dip={dip}
              endpoint={undoDip}
              onUndone={(fresh, message) => {
                say(message, "success");
                onUndone(fresh);
              }}
              onRefused={(message, tooLate) => {
                if (tooLate) setUndoOpen(false);
                say(message, "error");
              }}
              onClose={() => setConfirming(false)}
            />
          )}
        </Suspense>
      </ChunkBoundary>
    </span>
  );
}
