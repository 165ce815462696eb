import { Suspense, lazy, useCallback, useEffect, useId, useReducer, useRef, useState } from "react";
import { Celebration } from "../ui/celebration";
import { Feedback, FeedbackProvider, useSay } from "../ui/feedback";
import { cardReducer, initialCardState } from "./card-state";
import { DipAction, DipForm, type DipDetailsConfig } from "./dip-form";
import { DipActions } from "./dip-actions";
import { WaitingTaps, useOfflineTaps } from "./offline-taps";
import type { PhotoAfterState } from "./photo-after";
import { useRegisterDip, type PhotoJob } from "./register-dip";
import { BadgeList, CompletedCard, PhotoCollection, ProgressCard, RecentDips, StampGrid } from "./sections";
import { T } from "./texts";
import { ChunkBoundary } from "../ui/chunk-boundary";
import type { Badge, Dip, RegisterDipResponse, StampCardData, TogetherData, UpdateDipResponse } from "./types";
import "./stampcard.css";


// Samen plonsen's cards (apps/together) load just after the island: the card's first load stays small.
const SeasonBriefing = lazy(() => import("./together").then((module) => ({ default: module.SeasonBriefing })));
const WarmUp = lazy(() => import("./together").then((module) => ({ default: module.WarmUp })));
// A dip's photo goes after the dip (photo-after.tsx, loaded when a photo is chosen).
const PhotoAfterStatus = lazy(() => import("./photo-after").then((module) => ({ default: module.PhotoAfterStatus })));

/** The first badge still to earn: the card says how far it is ('Nog 3 plonsen tot de Kikker'). */
function nextBadgeOf(badges: readonly Badge[], dipCount: number): Badge | null {
  const ahead = badges.filter((badge) => !badge.earned && badge.milestone > dipCount);
  return ahead.sort((a, b) => a.milestone - b.milestone)[0] ?? null;
}

export interface StampCardProps {
  initial: StampCardData;
  /** Samen plonsen (apps/together): "Met wie?", the season's briefing, "Opwarmen". */
  together?: TogetherData | null;
}

/**
 * The stamp card of one user challenge. Everything it shows comes from the server: the
 * initial props, then each dip registration's answer (count, completion, badge, toasts,
 * celebration). It never decides itself whether a dip counts or a badge is earned.
 */
export function StampCard({ initial, together = null }: StampCardProps) {
  return (
    <FeedbackProvider>
      <Card initial={initial} together={together} />
    </FeedbackProvider>
  );
}

function Card({ initial, together = null }: StampCardProps) {
  const [{ card, celebration, focusCompletion }, dispatch] = useReducer(cardReducer, initial, initialCardState);
  const say = useSay();
  // After a dip: "Opwarmen", with the server's one line of advice (or none).
  const [afterDip, setAfterDip] = useState<{ advice: string | null } | null>(null);
  const doneHeading = useRef<HTMLHeadingElement>(null);
  const addTitleId = useId();
  const dipFormId = useId();
  const { challenge, dipCount } = card;
  const completed = card.completedAt !== null;

  useEffect(() => {
    // The page's 'Challenge Stoppen' (server-rendered) goes when the card completes: a finished card is kept.
    if (completed) document.querySelectorAll("[data-until-completed]").forEach((element) => element.remove());
  }, [completed]);

  useEffect(() => {
    if (completed && focusCompletion) {
      dispatch({ type: "completionFocused" });
      doneHeading.current?.focus();
    }
  }, [completed, focusCompletion]);

  // The server's answer to a dip, sent now or later from the queue: the card shows what it says.
  const dipStored = useCallback(
    (answer: RegisterDipResponse) => {
      dispatch({ type: "dipStored", answer });
      setAfterDip({ advice: answer.advice ?? null });
      // One message, not a stack: the server lists them in rising importance ('Plons toegevoegd!', the
      // badge, the completion), so the last one says it all, for its own duration.
      if (answer.outcome === "confirmed") {
        say(T.alreadyOnCard, "success", 4000);
        return;
      }
      const last = answer.toasts[answer.toasts.length - 1] ?? { text: answer.message, durationMs: 3000 };
      say(last.text, "success", last.durationMs);
    },
    [say],
  );

  // The photo of the latest dip with one: sent after the dip, and what became of it.
  const [photoAfter, setPhotoAfter] = useState<PhotoAfterState | null>(null);
  const photoStored = useCallback((answer: UpdateDipResponse) => {
    dispatch({ type: "dipSaved", dip: answer.dip });
    const { dip, message } = answer;
    setPhotoAfter((current) => (current?.dipId === dip.id ? { dipId: dip.id, kind: "stored", message, dip } : current));
  }, []);

  const offline = useOfflineTaps({
    userChallengeId: initial.userChallengeId,
    member: initial.member,
    onDip: (body) => dipStored(body as RegisterDipResponse),
    onPhoto: (body) => photoStored(body as UpdateDipResponse),
  });
  const { queueTap } = offline;
  const sendPhotoAfter = useCallback(
    (job: PhotoJob) =>
      void import("./photo-after").then(
        ({ photoAfterSend }) =>
          photoAfterSend(job, { card: initial, queueTap, onStored: photoStored, setState: setPhotoAfter }),
        () => setPhotoAfter({ dipId: job.dipId, kind: "failed", message: T.partNotLoaded }),
      ),
    [initial, queueTap, photoStored],
  );
  const { busy, serverErrors, register } = useRegisterDip({
    card: initial,
    queueTap,
    onStored: dipStored,
    onPhotoAfter: sendPhotoAfter,
  });

  const endCelebration = useCallback(() => dispatch({ type: "celebrationEnded" }), []);
  const dipSaved = useCallback((dip: Dip) => dispatch({ type: "dipSaved", dip }), []);
  const dipUndone = useCallback((fresh: StampCardData) => dispatch({ type: "cardReplaced", card: fresh }), []);

  const detailsConfig: DipDetailsConfig = {
    limits: card.conditionLimits,
    suggestions: card.spotSuggestions,
    safetyNote: card.safetyNote,
    serverErrors,
    buddiesUrl: together?.buddiesUrl ?? null,
    offeredBuddies: together?.meetup?.mates.map((mate) => mate.id) ?? [],
  };

  return (
    <div className="sc-root">
      <div className="sc-col">
        {together !== null && together.briefing.due && (
          <ChunkBoundary message={T.partNotLoaded}>
            <Suspense fallback={null}>
              <SeasonBriefing briefing={together.briefing} />
            </Suspense>
          </ChunkBoundary>
        )}
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
            {together?.meetup && together.meetup.mates.length > 0 && (
              <p className="field-help">
                {`Na je plonsafspraak (${together.meetup.place}, ${together.meetup.startsAtDisplay}): `}
                {`${together.meetup.mates.map((mate) => mate.name).join(", ")} ${together.meetup.mates.length === 1 ? "staat" : "staan"} aangevinkt bij "Met wie?".`}
              </p>
            )}
            <DipForm
              formId={dipFormId}
              busy={busy}
              maxPhotoBytes={initial.photoMaxBytes}
              maxPhotoSide={initial.photoMaxSide}
              onRegister={register}
              notAnImageMessage={initial.photoNotImageMessage}
              details={detailsConfig}
            />
          </section>
        )}
        {!completed && <DipAction formId={dipFormId} busy={busy} />}
        <Feedback className="sc-message" />
        {/* Always there: screen readers announce changes to a region that already exists. */}
        <div className="sc-photo-region" aria-live="polite">
          {photoAfter !== null && (
            <Suspense fallback={null}>
              <PhotoAfterStatus state={photoAfter} />
            </Suspense>
          )}
        </div>
        {together !== null && afterDip !== null && (
          <ChunkBoundary message={T.partNotLoaded}>
            <Suspense fallback={null}>
              <WarmUp warmUp={together.warmUp} advice={afterDip.advice} />
            </Suspense>
          </ChunkBoundary>
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
