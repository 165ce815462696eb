import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useRef,
  useState,
  type ReactNode,
} from "react";
import { redirectToLogin, type ApiFailure } from "../lib/api";
import { Button, type ButtonProps, type ButtonVariant } from "../ui/button";
import { ToastRegion, useToasts, type ToastKind } from "../ui/toast";
import { T } from "./texts";

/**
 * One request at a time: while one is under way, `run` sends nothing and resolves to undefined, so a
 * double click sends once. The ref guards within the same tick; `busy` disables the button.
 */
export function useSingleFlight(): [boolean, <R>(send: () => Promise<R>) => Promise<R | undefined>] {
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const run = useCallback(async <R,>(send: () => Promise<R>): Promise<R | undefined> => {
    if (inFlight.current) return undefined;
    inFlight.current = true;
    setBusy(true);
    try {
      return await send();
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  }, []);
  return [busy, run];
}

/** Time to read 'Sessie verlopen, log opnieuw in' before going to the login page. */
export const LOGIN_REDIRECT_DELAY_MS = 1500;
const DEFAULT_LOGIN_URL = "/auth";

export type Notify = (text: string, kind?: ToastKind) => void;

const NotifyContext = createContext<Notify | null>(null);

/** One toast region for the whole admin page; the sections call {@link useNotify}. */
export function AdminToastProvider({ children }: { children?: ReactNode }) {
  const { toasts, showToast, dismissToast } = useToasts();
  const notify = useCallback<Notify>(
    (text, kind = "info") => {
      showToast(text, { kind });
    },
    [showToast],
  );
  return (
    <NotifyContext value={notify}>
      {children}
      <div className="adm">
        <ToastRegion toasts={toasts} onDismiss={dismissToast} closeLabel={T.close} />
      </div>
    </NotifyContext>
  );
}

export function useNotify(): Notify {
  const notify = useContext(NotifyContext);
  if (notify === null) throw new Error("useNotify: render inside <AdminToastProvider>.");
  return notify;
}

/** The body's `error` text, else `fallback` (a 500 page, a network error). */
export function errorText(result: ApiFailure, fallback: string): string {
  const body = result.body;
  if (typeof body === "object" && body !== null && "error" in body) {
    const error: unknown = (body as Record<string, unknown>)["error"];
    if (typeof error === "string" && error.trim() !== "") return error;
  }
  return result.status === 401 ? T.sessionExpired : fallback;
}

/**
 * Handles a failed call and returns the text to show: the server's `error`, else `fallback`.
 * With `toast` it is also shown as an error toast. On 401 it is always toasted and the page
 * goes to the login URL after {@link LOGIN_REDIRECT_DELAY_MS}.
 */
export type FailureHandler = (result: ApiFailure, fallback: string, toast?: boolean) => string;

export function useFailure(): FailureHandler {
  const notify = useNotify();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
    },
    [],
  );
  return useCallback<FailureHandler>(
    (result, fallback, toast = false) => {
      const text = errorText(result, fallback);
      const expired = result.status === 401;
      if (toast || expired) notify(text, "error");
      if (expired && timer.current === null) {
        const loginUrl = result.loginUrl ?? DEFAULT_LOGIN_URL;
        timer.current = setTimeout(() => redirectToLogin(loginUrl), LOGIN_REDIRECT_DELAY_MS);
      }
      return text;
    },
    [notify],
  );
}

/** `url` with `{id}` replaced. */
export function withId(url: string, id: number): string {
  return url.replace("{id}", encodeURIComponent(String(id)));
}

export type ActionVariant = ButtonVariant;

export interface ActionButtonProps extends Omit<ButtonProps, "size"> {
  small?: boolean;
}

/** The site's button ({@link Button}), small when asked. */
export function ActionButton({ small = false, ...rest }: ActionButtonProps) {
  return <Button {...rest} size={small ? "sm" : "md"} />;
}

/** An inline error (`role="alert"`), optionally with a retry button. */
export function ErrorMessage({ text, onRetry, busy = false }: { text: string; onRetry?: () => void; busy?: boolean }) {
  return (
    <div className="adm-error" role="alert">
      <span>{text}</span>
      {onRetry !== undefined && (
        <ActionButton variant="outline" small onClick={onRetry} busy={busy} busyLabel={T.loading}>
          {T.retry}
        </ActionButton>
      )}
    </div>
  );
}

/** A `<dialog>` helper: opens modal while `open`, closes otherwise (jsdom-safe). */
export function syncDialog(dialog: HTMLDialogElement | null, open: boolean): void {
  if (dialog === null) return;
  if (open && !dialog.open) {
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
  } else if (!open && dialog.open) {
    if (typeof dialog.close === "function") dialog.close();
    else dialog.removeAttribute("open");
  }
}
