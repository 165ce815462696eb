import {
  memo,
  useEffect,
  useId,
  useRef,
  useState,
  type CSSProperties,
  type ReactNode,
  type Ref,
} from "react";
import { T } from "./texts";
import type { Badge, Dip } from "./types";

interface ProgressCardProps {
  dipCount: number;
  targetDips: number;
  completed: boolean;
  /** The next badge to earn, if any. */
  nextBadge?: Badge | null;
}

export function ProgressCard({ dipCount, targetDips, completed, nextBadge = null }: ProgressCardProps) {
  const titleId = useId();
  const remaining = Math.max(0, targetDips - dipCount);
  const percent = targetDips > 0 ? Math.min(100, Math.floor((dipCount / targetDips) * 100)) : 0;
  return (
    <section className="card sc-progress-card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        {T.progressTitle}
      </h2>
      <p className="sc-count">
        <strong>{dipCount}</strong> / {targetDips}
      </p>
      {!completed && remaining > 0 && <p className="sc-remaining">{T.remaining(remaining)}</p>}
      {!completed && nextBadge !== null && (
        <p className="sc-next-badge">
          {nextBadge.imageUrl !== "" && <img className="sc-next-badge__img" src={nextBadge.imageUrl} alt="" />}
          {T.toNextBadge(nextBadge.milestone - dipCount, nextBadge.name)}
        </p>
      )}
      <div className="sc-bar">
        <progress className="progress" max={targetDips} value={dipCount} aria-labelledby={titleId} />
        <span className="sc-percent">{T.percentDone(percent)}</span>
      </div>
    </section>
  );
}

interface CompletedCardProps {
  completedAtDisplay: string | null;
  headingRef?: Ref<HTMLHeadingElement>;
  /** The card's badges: the earned ones are the trophy shown in the summary. */
  badges?: readonly Badge[];
  photoCount?: number;
}

/** The calm summary of a finished challenge: done on which day, the badges collected, what is kept. */
export function CompletedCard({ completedAtDisplay, headingRef, badges = [], photoCount = 0 }: CompletedCardProps) {
  const titleId = useId();
  const earned = badges.filter((badge) => badge.earned);
  return (
    <section className="card sc-done-card" aria-labelledby={titleId}>
      <span className="sc-done-card__icon" aria-hidden="true">
        ✓
      </span>
      <h2 id={titleId} className="card-title" ref={headingRef} tabIndex={-1}>
        {T.completedTitle}
      </h2>
      {completedAtDisplay !== null && <p className="sc-done-card__date">{T.completedOn(completedAtDisplay)}</p>}
      {earned.length > 0 && (
        <>
          <p className="sc-done-card__badges-title">{T.completedBadges(earned.length, badges.length)}</p>
          <ul className="sc-done-card__badges">
            {earned.map((badge) => (
              <li key={badge.id}>
                {badge.imageUrl !== "" && <img src={badge.imageUrl} alt="" width={48} height={48} />}
                <span>{badge.name}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {photoCount > 0 && <p className="muted">{T.completedPhotos(photoCount)}</p>}
      <p className="muted">{T.completedKept}</p>
    </section>
  );
}

interface StampGridProps {
  targetDips: number;
  dipCount: number;
  milestones: readonly number[];
  badges: readonly Badge[];
}

/** targetDips plain cells in a CSS grid (10 columns at most); cheap even at 100. */
export const StampGrid = memo(function StampGrid({
  targetDips,
  dipCount,
  milestones,
  badges,
}: StampGridProps) {
  const titleId = useId();
  const milestoneSet = new Set(milestones);
  const badgeAt = new Map(badges.map((badge) => [badge.milestone, badge]));
  const cells = [];
  for (let n = 1; n <= targetDips; n++) {
    const done = n <= dipCount;
    const milestone = milestoneSet.has(n);
    const badge = milestone ? badgeAt.get(n) : undefined;
    const className = `sc-cell${done ? " sc-cell--done" : ""}${milestone ? " sc-cell--milestone" : ""}`;
    const label =
      (done ? T.cellDone(n) : T.cellTodo(n)) + (badge !== undefined ? T.cellMilestone(badge.name) : "");
    cells.push(
      <li key={n} className={className} aria-label={label}>
        {badge !== undefined && badge.imageUrl !== "" && (
          <img className="sc-cell__badge" src={badge.imageUrl} alt="" aria-hidden="true" />
        )}
        <span className="sc-cell__mark" aria-hidden="true">
          {done ? "✓" : n}
        </span>
      </li>,
    );
  }
  const style = { "--sc-cols": Math.min(10, Math.max(1, targetDips)) } as CSSProperties;
  return (
    <section className="card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        {T.gridTitle}
      </h2>
      <ol className="sc-grid" style={style}>
        {cells}
      </ol>
    </section>
  );
});

export function BadgeList({ badges }: { badges: readonly Badge[] }) {
  const titleId = useId();
  const earned = badges.filter((badge) => badge.earned).length;
  return (
    <section className="card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        {T.badgesTitle(earned, badges.length)}
      </h2>
      <ul className="sc-badges">
        {badges.map((badge) => (
          <li key={badge.id} className={`sc-badge${badge.earned ? " sc-badge--earned" : ""}`}>
            {badge.imageUrl !== "" && (
              <img className="sc-badge__img" src={badge.imageUrl} alt="" loading="lazy" />
            )}
            <span className="sc-badge__name">{badge.name}</span>
            <span className="sc-badge__milestone">{T.badgeMilestone(badge.milestone)}</span>
            <span className="sc-badge__state">
              {badge.earned
                ? badge.earnedAtDisplay !== null
                  ? T.badgeEarnedOn(badge.earnedAtDisplay)
                  : ""
                : T.badgeLocked}
            </span>
            {badge.physicalStatusDisplay ? (
              <span className="sc-badge__state sc-badge__physical">{badge.physicalStatusDisplay}</span>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** Thumbnails that open the full photo in a `<dialog>` (or in the tab without JS features). */
export function PhotoCollection({ photos, completed }: { photos: readonly Dip[]; completed: boolean }) {
  const titleId = useId();
  const [open, setOpen] = useState<Dip | null>(null);
  return (
    <section className="card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        {T.photosTitle}
        {photos.length > 0 && <span className="badge-pill info">{photos.length}</span>}
      </h2>
      {photos.length === 0 ? (
        <p className="empty-state">{completed ? T.photosEmptyDone : T.photosEmpty}</p>
      ) : (
        <ul className="sc-photos">
          {photos.map((dip) =>
            dip.photoUrl === null ? null : (
              <li key={dip.id}>
                <a
                  className="sc-photo"
                  href={dip.photoUrl}
                  onClick={(event) => {
                    event.preventDefault();
                    setOpen(dip);
                  }}
                >
                  <img
                    src={dip.thumbnailUrl ?? dip.photoUrl}
                    alt={T.photoAlt(dip.number)}
                    loading="lazy"
                    width={160}
                    height={160}
                  />
                  <span className="sc-photo__no" aria-hidden="true">
                    {dip.number}
                  </span>
                </a>
              </li>
            ),
          )}
        </ul>
      )}
      {open !== null && <Lightbox dip={open} onClose={() => setOpen(null)} />}
    </section>
  );
}

function Lightbox({ dip, onClose }: { dip: Dip; onClose: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const captionId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null || dialog.open) return;
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
  }, []);
  // Closing through the element lets the browser return focus to the thumbnail;
  // its `close` event (also fired by Escape) then unmounts the lightbox.
  const close = () => {
    const dialog = ref.current;
    if (dialog !== null && typeof dialog.close === "function") dialog.close();
    else onClose();
  };
  return (
    <dialog
      ref={ref}
      className="sc-lightbox"
      aria-labelledby={captionId}
      onClose={onClose}
      onClick={(event) => {
        if (event.target === event.currentTarget) close();
      }}
    >
      <figure className="sc-lightbox__figure">
        <img src={dip.photoUrl ?? ""} alt={T.photoAlt(dip.number)} />
        <figcaption id={captionId}>{T.dipLine(dip.number, dip.dipDateDisplay)}</figcaption>
      </figure>
      <button type="button" className="btn btn-secondary" onClick={close} autoFocus>
        {T.close}
      </button>
    </dialog>
  );
}

export interface RecentDipsProps {
  dips: readonly Dip[];
  /** Buttons after a dip (edit its details, undo the latest). */
  renderActions?: (dip: Dip, index: number) => ReactNode;
}

export function RecentDips({ dips, renderActions }: RecentDipsProps) {
  const titleId = useId();
  return (
    <section className="card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        {T.recentTitle}
      </h2>
      {dips.length === 0 ? (
        <p className="empty-state">{T.recentEmpty}</p>
      ) : (
        <ol className="sc-recent">
          {dips.map((dip, index) => (
            <li key={dip.id} className="sc-recent__item">
              <span className="sc-recent__drop" aria-hidden="true">
                {dip.number}
              </span>
              <span className="sc-recent__text">
                {T.dipLine(dip.number, dip.dipDateDisplay)}
                {dip.conditionsDisplay !== undefined && dip.conditionsDisplay !== "" && (
                  <span className="dd-line">{dip.conditionsDisplay}</span>
                )}
                {dip.signedOffBy !== undefined && dip.signedOffBy !== null && (
                  <span className="dd-line">{dip.signedOffBy}</span>
                )}
                {dip.buddiesDisplay !== undefined && dip.buddiesDisplay !== "" && (
                  <span className="dd-line">{dip.buddiesDisplay}</span>
                )}
              </span>
              {dip.thumbnailUrl !== null || dip.photoUrl !== null ? (
                <>
                  <img
                    className="sc-recent__thumb"
                    src={dip.thumbnailUrl ?? dip.photoUrl ?? ""}
                    alt=""
                    loading="lazy"
                    width={40}
                    height={40}
                  />
                  <span className="visually-hidden">{` (${T.withPhoto})`}</span>
                </>
              ) : null}
              {renderActions?.(dip, index)}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
