import { useCallback, useEffect, useId, useRef, useState } from "react";
import { errorBodyOf, getCsrfToken } from "../lib/api";
import {
  SYNC_TAG,
  belongsTo,
  enqueueTap,
  flushQueue,
  queuedTaps,
  type QueuedTap,
  type SendResult,
} from "../lib/offline-queue";
import { REFUSAL } from "../lib/refusal-codes";
import { T } from "./texts";

/** A tap the server refused when it finally arrived (e.g. the card was completed meanwhile). */
export interface RefusedTap {
  requestId: string;
  tappedAt: string;
  message: string;
  /** A photo sent after its dip: the dip itself counts. */
  photo?: boolean;
}

export interface OfflineTaps {
  pending: readonly QueuedTap[];
  refused: readonly RefusedTap[];
  /** Keeps the tap on the phone and asks for it to be sent as soon as there is a connection. */
  queueTap: (tap: QueuedTap) => Promise<void>;
}

/** While taps wait on a phone that says it is online (a failed or timed-out upload), try again this often. */
export const RETRY_INTERVAL_MS = 30_000;

interface Options {
  userChallengeId: number;
  /** The signed-in member (X-Koud-Member): only their taps are shown and sent. */
  member: string;
  /** Called for each stored tap the server answered with a dip (201, or 200 for a replay). */
  onDip: (body: unknown) => void;
  /** Called for each photo sent after its dip that the server answered (200: the dip with its photo). */
  onPhoto: (body: unknown) => void;
}

/**
 * The stamp card's taps that wait for a connection (src/lib/offline-queue.ts). They are sent in
 * order when the page opens, when the browser says it is online again, or by the service worker's
 * Background Sync (which then tells the page to reload its card).
 */
export function useOfflineTaps({ userChallengeId, member, onDip, onPhoto }: Options): OfflineTaps {
  const [pending, setPending] = useState<readonly QueuedTap[]>([]);
  const [refused, setRefused] = useState<readonly RefusedTap[]>([]);
  const onDipRef = useRef({ onDip, onPhoto });
  onDipRef.current = { onDip, onPhoto };

  const reload = useCallback(async () => {
    setPending((await queuedTaps(userChallengeId)).filter((tap) => belongsTo(tap, member)));
  }, [userChallengeId, member]);

  const flush = useCallback(async () => {
    const onResult = ({ tap, status, body }: SendResult) => {
      const photo = tap.dipId !== undefined;
      if (status === 200 || status === 201) {
        onDipRef.current[photo ? "onPhoto" : "onDip"](body);
      } else if (!photo || errorBodyOf(body)?.code !== REFUSAL.dipUnknown) {
        // (A photo whose dip was undone meanwhile has nothing left to join.)
        setRefused((current) => [
          ...current,
          { requestId: tap.requestId, tappedAt: tap.tappedAt, message: errorOf(body), photo },
        ]);
      }
    };
    // Every waiting tap, also those of a card stopped since: the server refuses those, and the card says so.
    await flushQueue({ member, csrfToken: getCsrfToken(), onResult });
    await reload();
  }, [member, reload]);

  useEffect(() => {
    if (!hasIndexedDb()) return;
    void flush();
    const online = () => void flush();
    const fromWorker = (event: MessageEvent) => {
      if ((event.data as { type?: unknown } | null)?.type === "taps-sent") window.location.reload();
    };
    window.addEventListener("online", online);
    navigator.serviceWorker?.addEventListener("message", fromWorker);
    return () => {
      window.removeEventListener("online", online);
      navigator.serviceWorker?.removeEventListener("message", fromWorker);
    };
  }, [flush]);

  // A tap whose upload failed while the phone says it is online gets no `online` event: try again now and then.
  const waiting = pending.length > 0;
  useEffect(() => {
    if (!waiting) return;
    const timer = setInterval(() => {
      if (navigator.onLine !== false) void flush();
    }, RETRY_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [waiting, flush]);

  const queueTap = useCallback(
    async (tap: QueuedTap) => {
      await enqueueTap(tap);
      await reload();
      await askForBackgroundSync();
    },
    [reload],
  );

  return { pending, refused, queueTap };
}

function hasIndexedDb(): boolean {
  return typeof indexedDB !== "undefined";
}

/** Whether a tap can wait on this phone (IndexedDB); without it a failed send stays an error. */
export const canQueueTaps = hasIndexedDb;

async function askForBackgroundSync(): Promise<void> {
  try {
    const registration = await navigator.serviceWorker?.getRegistration();
    const sync = (registration as (ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } }) | undefined)?.sync;
    await sync?.register(SYNC_TAG);
  } catch {
    // No Background Sync here: the `online` event and the next visit send the taps.
  }
}

function errorOf(body: unknown): string {
  const error = errorBodyOf(body)?.error ?? "";
  return error !== "" ? error : T.queuedGenericError;
}

const TIME = new Intl.DateTimeFormat("nl-NL", { weekday: "long", hour: "2-digit", minute: "2-digit" });

export function tapTimeDisplay(iso: string): string {
  return TIME.format(new Date(iso));
}

/** The card's list of taps that wait for a connection, and of late taps the server refused. */
export function WaitingTaps({ pending, refused }: { pending: readonly QueuedTap[]; refused: readonly RefusedTap[] }) {
  const titleId = useId();
  if (pending.length === 0 && refused.length === 0) return null;
  return (
    <section className="sc-card sc-waiting" aria-labelledby={titleId}>
      <h2 id={titleId} className="sc-title">
        {T.waitingTitle}
      </h2>
      {pending.length > 0 && <p className="sc-help">{T.waitingHelp}</p>}
      <ul className="sc-waiting__list" aria-live="polite">
        {pending.map((tap) => (
          <li key={tap.requestId} className="sc-waiting__item">
            <span className="sc-waiting__text">
              {tap.dipId !== undefined
                ? T.waitingPhotoLine(tapTimeDisplay(tap.tappedAt))
                : `${T.waitingLine(tapTimeDisplay(tap.tappedAt))}${tap.photo !== null ? ` · ${T.withPhoto}` : ""}`}
            </span>
            <span className="sc-waiting__status">{T.waiting}</span>
          </li>
        ))}
        {refused.map((tap) => (
          <li key={tap.requestId} className="sc-waiting__item sc-waiting__item--refused" role="alert">
            <span className="sc-waiting__text">
              {(tap.photo === true ? T.photoRefusedLine : T.refusedLine)(tapTimeDisplay(tap.tappedAt), tap.message)}
            </span>
          </li>
        ))}
      </ul>
    </section>
  );
}
