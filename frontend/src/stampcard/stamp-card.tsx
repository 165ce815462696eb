import { useCallback, useEffect, useId, useRef, useState } from "react";
import { GENERIC_ERROR_MESSAGE, getCsrfToken, postForm, redirectToLogin } from "../lib/api";
import { newRequestId } from "../lib/request-id";
import type { CelebrationKind } from "../lib/celebrate";
import { Celebration } from "../ui/celebration";
import { ToastRegion, useToasts } from "../ui/toast";
import { DipForm, MAX_PHOTO_BYTES } from "./dip-form";
import { WaitingTaps, canQueueTaps, useOfflineTaps } from "./offline-taps";
import { BadgeList, CompletedCard, PhotoCollection, ProgressCard, RecentDips, StampGrid } from "./sections";
import { T } from "./texts";
import type { RegisterDipResponse, StampCardData } from "./types";
import "./stampcard.css";

export const RECENT_DIPS = 10;
const MAX_PHOTO_MB = MAX_PHOTO_BYTES / (1024 * 1024);
/** Time to read 'Je sessie is verlopen. Log opnieuw in.' before going to the login page. */
export const LOGIN_REDIRECT_DELAY_MS = 1500;
const DEFAULT_LOGIN_URL = "/auth";

export interface StampCardProps {
  initial: StampCardData;
}

/**
 * The stamp card of one user challenge. Everything it shows comes from the server: the
 * initial props, then each dip registration's answer (count, completion, badge, toasts,
 * celebration). It never decides itself whether a dip counts or a badge is earned.
 */
export function StampCard({ initial }: StampCardProps) {
  const [card, setCard] = useState(initial);
  const [busy, setBusy] = useState(false);
  const [celebration, setCelebration] = useState<{ kind: CelebrationKind; key: number } | null>(null);
  const { toasts, showToast, dismissToast } = useToasts();
  // State updates are async; the ref stops a second send before the button re-renders disabled.
  const sending = useRef(false);
  const requestId = useRef<string | null>(null);
  const doneHeading = useRef<HTMLHeadingElement>(null);
  const justCompleted = useRef(false);
  const addTitleId = useId();

  const { challenge, dipCount, completedAt } = card;
  const completed = completedAt !== null;

  useEffect(() => {
    if (completed && justCompleted.current) {
      justCompleted.current = false;
      doneHeading.current?.focus();
    }
  }, [completed]);

  // The server's answer to a dip, sent now or later from the queue: the card shows what it says.
  const applyDip = useCallback(
    (data: RegisterDipResponse) => {
      const { dip, badge } = data;
      justCompleted.current = data.completedAt !== null;
      setCard((current) => ({
        ...current,
        dipCount: data.dipCount,
        completedAt: data.completedAt,
        completedAtDisplay: data.completedAtDisplay,
        recentDips: [dip, ...current.recentDips.filter((d) => d.id !== dip.id)].slice(0, RECENT_DIPS),
        photos: dip.photoUrl !== null ? [dip, ...current.photos.filter((d) => d.id !== dip.id)] : current.photos,
        badges:
          badge === null
            ? current.badges
            : current.badges.map((b) => (b.id === badge.id ? { ...b, ...badge, earned: true } : b)),
      }));
      const messages = data.toasts.length > 0 ? data.toasts : [{ text: data.message, durationMs: 3000 }];
      for (const toast of messages) showToast(toast.text, { kind: "success", durationMs: toast.durationMs });
      const kind = data.celebration;
      if (kind !== null) setCelebration((current) => ({ kind, key: (current?.key ?? 0) + 1 }));
    },
    [showToast],
  );

  const offline = useOfflineTaps({
    userChallengeId: initial.userChallengeId,
    onDip: (body) => applyDip(body as RegisterDipResponse),
  });

  /** Keeps the tap on the phone; it is sent (same request id, tap time) when the connection is back. */
  const queue = useCallback(
    async (id: string, photo: File | null): Promise<boolean> => {
      try {
        await offline.queueTap({
          requestId: id,
          tappedAt: new Date().toISOString(),
          userChallengeId: initial.userChallengeId,
          endpoint: initial.endpoints.registerDip,
          csrfToken: getCsrfToken(),
          photo,
          photoName: photo?.name ?? null,
          details: {},
        });
      } catch {
        showToast(T.networkError, { kind: "error" });
        return false;
      }
      showToast(T.queued, { kind: "info" });
      return true;
    },
    [offline.queueTap, initial.userChallengeId, initial.endpoints.registerDip, showToast],
  );

  const register = useCallback(
    async (photo: File | null): Promise<boolean> => {
      if (sending.current) return false;
      if (photo !== null && photo.size > MAX_PHOTO_BYTES) {
        showToast(T.photoTooLarge(MAX_PHOTO_MB), { kind: "error" });
        return false;
      }
      sending.current = true;
      setBusy(true);
      // One id per dip the member means to add: a retry after a lost answer reuses it, and the
      // server then answers with the dip it already stored instead of adding a second one.
      requestId.current ??= newRequestId();
      if (navigator.onLine === false && canQueueTaps()) {
        const id = requestId.current;
        requestId.current = null;
        const queued = await queue(id, photo);
        sending.current = false;
        setBusy(false);
        return queued;
      }
      const form = new FormData();
      form.append("request_id", requestId.current);
      if (photo !== null) form.append("photo", photo, photo.name);
      const result = await postForm<RegisterDipResponse>(initial.endpoints.registerDip, form);
      if (result.ok || result.status !== 0) requestId.current = null;
      if (!result.ok && result.status === 0 && canQueueTaps()) {
        // The request failed on the network: the tap waits on the phone with its request id, so
        // should the server have stored it after all, the resend is answered with that same dip.
        const id = requestId.current ?? newRequestId();
        requestId.current = null;
        const queued = await queue(id, photo);
        sending.current = false;
        setBusy(false);
        return queued;
      }

      if (!result.ok) {
        const loginUrl = result.loginUrl ?? (result.status === 401 ? DEFAULT_LOGIN_URL : null);
        if (result.status === 0) {
          showToast(T.networkError, { kind: "error" });
        } else {
          // A proxy in front of Django may refuse a big upload with its own (HTML) 413 page.
          const tooLarge = result.status === 413 && result.message === GENERIC_ERROR_MESSAGE;
          showToast(tooLarge ? T.photoTooLarge(MAX_PHOTO_MB) : result.message, { kind: "error" });
        }
        if (loginUrl !== null) {
          // Stay busy until the page goes: nothing more to send without a session.
          setTimeout(() => redirectToLogin(loginUrl), LOGIN_REDIRECT_DELAY_MS);
        } else {
          sending.current = false;
          setBusy(false);
        }
        return false;
      }
      sending.current = false;
      setBusy(false);
      applyDip(result.data);
      return true;
    },
    [initial.endpoints.registerDip, showToast, applyDip, queue],
  );

  const endCelebration = useCallback(() => setCelebration(null), []);

  return (
    <div className="sc-root">
      <div className="sc-col">
        <ProgressCard dipCount={dipCount} targetDips={challenge.targetDips} completed={completed} />
        {completed ? (
          <CompletedCard completedAtDisplay={card.completedAtDisplay} headingRef={doneHeading} />
        ) : (
          <section className="sc-card" aria-labelledby={addTitleId}>
            <h2 id={addTitleId} className="sc-title">
              {T.addTitle}
            </h2>
            <DipForm busy={busy} onRegister={register} />
          </section>
        )}
        <WaitingTaps pending={offline.pending} refused={offline.refused} />
        <StampGrid
          targetDips={challenge.targetDips}
          dipCount={dipCount}
          milestones={card.milestones}
          badges={card.badges}
        />
      </div>
      <div className="sc-col">
        {challenge.category === "waterdieren" && <BadgeList badges={card.badges} />}
        <PhotoCollection photos={card.photos} completed={completed} />
        <RecentDips dips={card.recentDips} />
      </div>
      <ToastRegion toasts={toasts} onDismiss={dismissToast} />
      {celebration !== null && (
        <Celebration key={celebration.key} kind={celebration.kind} onDone={endCelebration} />
      )}
    </div>
  );
}
