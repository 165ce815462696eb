import { useCallback, type ReactNode } from "react";
import type { ApiFailure } from "../lib/api";
import { useSignInRedirect } from "../lib/sign-in";
import { Button, type ButtonProps, type ButtonVariant } from "../ui/button";
import { FeedbackProvider, useSay } from "../ui/feedback";
import { FeedbackToast } from "../ui/toast";
import { T } from "./texts";

/** One toast region for the whole admin page; the sections speak with `useSay` (ui/feedback). */
export function AdminToastProvider({ children }: { children?: ReactNode }) {
  return (
    <FeedbackProvider replacesPageFlash={false}>
      {children}
      <div className="adm">
        <FeedbackToast closeLabel={T.close} />
      </div>
    </FeedbackProvider>
  );
}

/** The body's `error` text, else `fallback` (a 500 page, a network error). */
export function errorText(result: ApiFailure, fallback: string): string {
  const error = result.body?.error ?? "";
  if (error.trim() !== "") return error;
  return result.status === 401 ? T.sessionExpired : fallback;
}

/**
 * Handles a failed call and returns the text to show: the server's `error`, else `fallback`.
 * With `toast` it is also shown as an error toast. A lost session is always toasted, and the page
 * goes to the sign-in page (lib/sign-in.ts).
 */
export type FailureHandler = (result: ApiFailure, fallback: string, toast?: boolean) => string;

export function useFailure(): FailureHandler {
  const say = useSay();
  const { leaveIfSignedOut } = useSignInRedirect();
  return useCallback<FailureHandler>(
    (result, fallback, toast = false) => {
      const text = errorText(result, fallback);
      if (leaveIfSignedOut(result) || toast) say(text, "error");
      return text;
    },
    [say, leaveIfSignedOut],
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

/** An e-mail address on one line, cut with "…" where the column is too narrow; the whole address on
 * hover (title) and for screen readers. A phone's card layout lets it wrap (admin.css). */
export function EmailText({ email }: { email: string }) {
  return (
    <span className="adm-email-text" title={email}>
      {email}
    </span>
  );
}
