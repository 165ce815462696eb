import { useCallback, useRef, useState } from "react";

/** Runs `send` unless a request is under way: then nothing is sent and the answer is undefined. */
export type RunOnce = <R>(send: () => Promise<R>) => Promise<R | undefined>;

/**
 * One request at a time, for every island: while one is under way, `run` sends nothing and resolves to
 * undefined, so a double tap sends once. The ref guards within the same tick (state updates are async);
 * `busy` disables the button. Busy ends when the request ends, however it ends.
 */
export function useSingleFlight(): [boolean, RunOnce] {
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const run = useCallback<RunOnce>(async (send) => {
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
