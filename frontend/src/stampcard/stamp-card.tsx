import { useCallback, useEffect, useId, useRef, useState } from "react";
import { GENERIC_ERROR_MESSAGE, getCsrfToken, postForm, redirectToLogin } from "../lib/api";
import { newRequestId } from "../lib/request-id";
import type { CelebrationKind } from "../lib/celebrate";
import { Celebration, type CelebrationBadge } from "../ui/celebration";
import { MessageLine, useMessage } from "../ui/message";
import { DEFAULT_LIMITS, appendDetails, type DipDetailsValues } from "./dip-details";
import { DipForm, megabytes, type DipDetailsConfig } from "./dip-form";
import { DipActions } from "./dip-actions";
import { WaitingTaps, canQueueTaps, useOfflineTaps } from "./offline-taps";
import { BadgeList, CompletedCard, PhotoCollection, ProgressCard, RecentDips, StampGrid } from "./sections";
import { T } from "./texts";
import type { Badge, ConditionErrors, Dip, RegisterDipResponse, StampCardData } from "./types";
import "./stampcard.css";

export const RECENT_DIPS = 10;
/** Time to read 'Je sessie is verlopen. Log opnieuw in.' before going to the login page. */
export const LOGIN_REDIRECT_DELAY_MS = 1500;
const DEFAULT_LOGIN_URL = "/auth";
/**
 * How long a tap's upload may take before the card stops waiting and keeps the tap on the phone (sent
 * again later with the same request id). A shrunk photo (~300 KB) needs about 4 s on slow 4G; the
 * server's workers give up at 30 s. The queue's own resend waits longer (QUEUED_SEND_TIMEOUT_MS).
 */
export const DIP_SEND_TIMEOUT_MS = 25_000;

/** The first badge still to earn: the card says how far it is ('Nog 3 plonsen tot de Kikker'). */
function nextBadgeOf(badges: readonly Badge[], dipCount: number): Badge | null {
  const ahead = badges.filter((badge) => !badge.earned && badge.milestone > dipCount);
  return ahead.sort((a, b) => a.milestone - b.milestone)[0] ?? null;
}

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
  const [celebration, setCelebration] = useState<{
    kind: CelebrationKind;
    badge: CelebrationBadge | null;
    key: number;
  } | null>(null);
  const { message, show } = useMessage();
  // State updates are async; the ref stops a second send before the button re-renders disabled.
  const sending = useRef(false);
  const requestId = useRef<string | null>(null);
  const doneHeading = useRef<HTMLHeadingElement>(null);
  const justCompleted = useRef(false);
  const addTitleId = useId();
  const [serverErrors, setServerErrors] = useState<ConditionErrors>({});

  const { challenge, dipCount, completedAt } = card;
  const completed = completedAt !== null;

  useEffect(() => {
    // The page's 'Challenge Stoppen' (server-rendered) goes when the card completes: a finished card is kept.
    if (completed) document.querySelectorAll("[data-until-completed]").forEach((element) => element.remove());
  }, [completed]);

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
      // One message, not a stack: the server lists them in rising importance ('Plons toegevoegd!', the
      // badge, the completion), so the last one says it all, for its own duration.
      const last = data.toasts[data.toasts.length - 1] ?? { text: data.message, durationMs: 3000 };
      show(last.text, "success", last.durationMs);
      const kind = data.celebration;
      if (kind !== null) setCelebration((current) => ({ kind, badge, key: (current?.key ?? 0) + 1 }));
    },
    [show],
  );

  // Without a mark (older props) the card sends only taps without an owner: the ones it queued itself.
  const member = initial.member ?? "";
  const offline = useOfflineTaps({
    userChallengeId: initial.userChallengeId,
    member,
    onDip: (body) => applyDip(body as RegisterDipResponse),
  });

  /** Keeps the tap on the phone; it is sent (same request id, tap time) when the connection is back. */
  const queue = useCallback(
    async (id: string, photo: File | null, details: DipDetailsValues | undefined, message: string): Promise<boolean> => {
      const fields = new FormData();
      if (details !== undefined) appendDetails(fields, details);
      try {
        await offline.queueTap({
          requestId: id,
          tappedAt: new Date().toISOString(),
          userChallengeId: initial.userChallengeId,
          ...(member === "" ? {} : { member }),
          endpoint: initial.endpoints.registerDip,
          csrfToken: getCsrfToken(),
          photo,
          photoName: photo?.name ?? null,
          details: Object.fromEntries([...fields.entries()].map(([name, value]) => [name, String(value)])),
        });
      } catch {
        show(T.networkError, "error");
        return false;
      }
      show(message, "info");
      return true;
    },
    [offline.queueTap, initial.userChallengeId, initial.endpoints.registerDip, member, show],
  );

  const register = useCallback(
    async (photo: File | null, details?: DipDetailsValues): Promise<boolean> => {
      if (sending.current) return false;
      if (photo !== null && photo.size > initial.photoMaxBytes) {
        show(T.photoTooLarge(megabytes(initial.photoMaxBytes)), "error");
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
        const queued = await queue(id, photo, details, T.queued);
        sending.current = false;
        setBusy(false);
        return queued;
      }
      const form = new FormData();
      form.append("request_id", requestId.current);
      if (photo !== null) form.append("photo", photo, photo.name);
      if (details !== undefined) appendDetails(form, details);
      const result = await postForm<RegisterDipResponse>(initial.endpoints.registerDip, form, {
        timeoutMs: DIP_SEND_TIMEOUT_MS,
      });
      setServerErrors((result.ok ? null : (result.body as { fields?: ConditionErrors } | null)?.fields) ?? {});
      if (result.ok || result.status !== 0) requestId.current = null;
      if (!result.ok && result.status === 0 && canQueueTaps()) {
        // The request failed on the network or timed out: the tap waits on the phone with its request
        // id, so should the server have stored it after all, the resend is answered with that same dip.
        const id = requestId.current ?? newRequestId();
        requestId.current = null;
        const queued = await queue(id, photo, details, navigator.onLine === false ? T.queued : T.queuedAfterFailure);
        sending.current = false;
        setBusy(false);
        return queued;
      }

      if (!result.ok) {
        const loginUrl = result.loginUrl ?? (result.status === 401 ? DEFAULT_LOGIN_URL : null);
        if (result.status === 0) {
          show(T.networkError, "error");
        } else {
          // A proxy in front of Django may refuse a big upload with its own (HTML) 413 page.
          const tooLarge = result.status === 413 && result.message === GENERIC_ERROR_MESSAGE;
          show(tooLarge ? T.photoTooLarge(megabytes(initial.photoMaxBytes)) : result.message, "error");
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
    [initial.endpoints.registerDip, initial.photoMaxBytes, show, applyDip, queue],
  );

  const endCelebration = useCallback(() => setCelebration(null), []);

  const detailsConfig: DipDetailsConfig = {
    limits: card.conditionLimits ?? DEFAULT_LIMITS,
    suggestions: card.spotSuggestions ?? [],
    safetyNote: card.safetyNote ?? "",
    serverErrors,
  };
  const dipSaved = useCallback((saved: Dip) => {
    const replace = (list: readonly Dip[]) => list.map((d) => (d.id === saved.id ? saved : d));
    setCard((current) => ({
      ...current,
      recentDips: replace(current.recentDips),
      photos:
        saved.photoUrl !== null && !current.photos.some((d) => d.id === saved.id)
          ? [saved, ...current.photos].sort((a, b) => b.number - a.number)
          : replace(current.photos),
      spotSuggestions:
        saved.spot !== undefined && saved.spot !== ""
          ? [saved.spot, ...(current.spotSuggestions ?? []).filter((spot) => spot !== saved.spot)]
          : current.spotSuggestions,
    }));
  }, []);
  const dipUndone = useCallback((fresh: StampCardData) => setCard(fresh), []);

  return (
    <div className="sc-root">
      <div className="sc-col">
        <ProgressCard
          dipCount={dipCount}
          targetDips={challenge.targetDips}
          completed={completed}
          nextBadge={nextBadgeOf(card.badges, dipCount)}
        />
        {completed ? (
          <CompletedCard
            completedAtDisplay={card.completedAtDisplay}
            headingRef={doneHeading}
            badges={card.badges}
            photoCount={card.photos.length}
          />
        ) : (
          <section className="card" aria-labelledby={addTitleId}>
            <h2 id={addTitleId} className="card-title">
              {T.addTitle}
            </h2>
            <DipForm
              busy={busy}
              maxPhotoBytes={initial.photoMaxBytes}
              {...(initial.photoMaxSide === undefined ? {} : { maxPhotoSide: initial.photoMaxSide })}
              onRegister={register}
              notAnImageMessage={initial.photoNotImageMessage}
              details={detailsConfig}
            />
          </section>
        )}
        <MessageLine message={message} className="sc-message" />
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
        <RecentDips
          dips={card.recentDips}
          renderActions={(dip, index) => (
            <DipActions
              dip={dip}
              latest={index === 0 && dip.number === dipCount}
              card={card}
              busy={busy}
              onSaved={dipSaved}
              onUndone={dipUndone}
              say={show}
            />
          )}
        />
      </div>
      {celebration !== null && (
        <Celebration
          key={celebration.key}
          kind={celebration.kind}
          badge={celebration.badge}
          onDone={endCelebration}
        />
      )}
    </div>
  );
}
