import { useCallback, useEffect, useRef, useState } from "react";

export type ToastKind = "info" | "success" | "error";

export interface ToastMessage {
  id: number;
  text: string;
  kind: ToastKind;
}

export interface ShowToastOptions {
  kind?: ToastKind;
  /** How long the toast stays; default {@link TOAST_DURATION_MS.default}. */
  durationMs?: number;
}

/** Durations from the spec (section 9): a badge 5 s, completion 10 s. */
export const TOAST_DURATION_MS = {
  default: 5000,
  badge: 5000,
  completion: 10000,
} as const;

export interface UseToasts {
  toasts: readonly ToastMessage[];
  /** Shows `text` for `durationMs` and returns its id. */
  showToast: (text: string, options?: ShowToastOptions) => number;
  dismissToast: (id: number) => void;
}

/**
 * Toast state for one island. Render `<ToastRegion toasts={toasts} onDismiss={dismissToast} />`
 * once and call `showToast("Plons toegevoegd!", { kind: "success" })`.
 */
export function useToasts(): UseToasts {
  const [toasts, setToasts] = useState<readonly ToastMessage[]>([]);
  const nextId = useRef(1);
  const timers = useRef(new Map<number, ReturnType<typeof setTimeout>>());

  const dismissToast = useCallback((id: number) => {
    const timer = timers.current.get(id);
    if (timer !== undefined) clearTimeout(timer);
    timers.current.delete(id);
    setToasts((current) => current.filter((toast) => toast.id !== id));
  }, []);

  const showToast = useCallback(
    (text: string, options: ShowToastOptions = {}) => {
      const id = nextId.current++;
      const toast: ToastMessage = { id, text, kind: options.kind ?? "info" };
      // One message at a time (issue 17.8): a new one replaces the old instead of stacking over the page.
      for (const timer of timers.current.values()) clearTimeout(timer);
      timers.current.clear();
      setToasts([toast]);
      const durationMs = options.durationMs ?? TOAST_DURATION_MS.default;
      timers.current.set(
        id,
        setTimeout(() => dismissToast(id), durationMs),
      );
      return id;
    },
    [dismissToast],
  );

  useEffect(() => {
    const pending = timers.current;
    return () => {
      for (const timer of pending.values()) clearTimeout(timer);
      pending.clear();
    };
  }, []);

  return { toasts, showToast, dismissToast };
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

/**
 * A single message for `durationMs`, for simple cases without a queue:
 * `const [message, flash] = useFlashMessage();  flash("Link gekopieerd", 3000)`.
 */
export function useFlashMessage(): [string | null, (text: string, durationMs?: number) => void] {
  const [message, setMessage] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const flash = useCallback((text: string, durationMs: number = TOAST_DURATION_MS.default) => {
    if (timer.current !== null) clearTimeout(timer.current);
    setMessage(text);
    timer.current = setTimeout(() => {
      timer.current = null;
      setMessage(null);
    }, durationMs);
  }, []);
  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
    },
    [],
  );
  return [message, flash];
}
