import { useCallback, useEffect, useRef, useState } from "react";
import { redirectToLogin, type ApiFailure } from "./api";

/**
 * The one way an island answers a lost session (401): it shows the server's message, sends nothing more,
 * and goes to the sign-in page after {@link LOGIN_REDIRECT_DELAY_MS}. Every island uses this.
 */

/** Time to read 'Je sessie is verlopen. Log opnieuw in.' before going to the sign-in page. */
export const LOGIN_REDIRECT_DELAY_MS = 1500;
/** settings.LOGIN_URL, for a 401 whose body names none (a proxy, an older server). */
export const DEFAULT_LOGIN_URL = "/auth";

/** Where a failed call sends the member to sign in again, or null when the session is not the problem. */
export function signInUrlOf(failure: ApiFailure): string | null {
  return failure.loginUrl ?? (failure.status === 401 ? DEFAULT_LOGIN_URL : null);
}

export interface SignInRedirect {
  /** True once a failure said the session is gone: the page is about to go, nothing more to send. */
  leaving: boolean;
  /** When `failure` says the session is gone: go to the sign-in page after the delay (once), and true. */
  leaveIfSignedOut: (failure: ApiFailure) => boolean;
}

export function useSignInRedirect(): SignInRedirect {
  const [leaving, setLeaving] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
    },
    [],
  );
  const leaveIfSignedOut = useCallback((failure: ApiFailure) => {
    const loginUrl = signInUrlOf(failure);
    if (loginUrl === null) return false;
    setLeaving(true);
    timer.current ??= setTimeout(() => redirectToLogin(loginUrl), LOGIN_REDIRECT_DELAY_MS);
    return true;
  }, []);
  return { leaving, leaveIfSignedOut };
}
