import { useShown } from "./feedback";

/** The toast look of an island's one message (ui/feedback.tsx holds the message and its timer). */
export type ToastKind = "info" | "success" | "error";

export interface ToastMessage {
  id: number;
  text: string;
  kind: ToastKind;
}

export interface ToastRegionProps {
  toasts: readonly ToastMessage[];
  /** When given, each toast gets a close button. */
  onDismiss?: (id: number) => void;
  /** Accessible name of the close button. */
  closeLabel?: string;
}

/**
 * The live region. Keep it rendered even when empty: screen readers only announce changes
 * to a live region that already existed.
 */
export function ToastRegion({ toasts, onDismiss, closeLabel = "Sluiten" }: ToastRegionProps) {
  return (
    <div className="toast-region" role="status" aria-live="polite" aria-atomic="false">
      {toasts.map((toast) => (
        <Toast key={toast.id} toast={toast} onDismiss={onDismiss} closeLabel={closeLabel} />
      ))}
    </div>
  );
}

export interface ToastProps {
  toast: ToastMessage;
  onDismiss?: ((id: number) => void) | undefined;
  closeLabel?: string;
}

export function Toast({ toast, onDismiss, closeLabel = "Sluiten" }: ToastProps) {
  return (
    <div className={`toast ${toast.kind}`} data-toast-id={toast.id}>
      <span className="toast-text">{toast.text}</span>
      {onDismiss !== undefined && (
        <button
          type="button"
          className="toast-close"
          aria-label={closeLabel}
          onClick={() => onDismiss(toast.id)}
        >
          ×
        </button>
      )}
    </div>
  );
}

/** An island's one message (ui/feedback.tsx) as a toast, with a close button. */
export function FeedbackToast({ closeLabel = "Sluiten" }: { closeLabel?: string }) {
  const { message, dismiss } = useShown();
  return <ToastRegion toasts={message === null ? [] : [message]} onDismiss={dismiss} closeLabel={closeLabel} />;
}
