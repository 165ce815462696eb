import { useEffect, useMemo, useRef } from "react";
import {
  CELEBRATION_DROPS,
  CELEBRATION_DURATION_MS,
  CELEBRATION_SPARKLES,
  COMPLETION_BANNER,
  MILESTONE_BANNER,
  type CelebrationKind,
} from "../lib/celebrate";
import { usePrefersReducedMotion } from "./reduced-motion";
import "./celebration.css";

/** The badge the moment is about: shown big, with its name and milestone, at the centre of the screen. */
export interface CelebrationBadge {
  name: string;
  milestone: number;
  /** May be "": the card then shows the name only. */
  imageUrl: string;
}

export interface CelebrationProps {
  kind: CelebrationKind;
  /** The badge just earned (a milestone, or the last one at completion). */
  badge?: CelebrationBadge | null;
  /** Called once, `durationMs` after mounting. The parent unmounts the celebration then. */
  onDone?: () => void;
  durationMs?: number;
}

interface Drop {
  left: number; // %
  delay: number; // s
  duration: number; // s
  size: number; // rem
}

interface Sparkle {
  left: number; // %
  top: number; // %
  delay: number; // s
  size: number; // rem
}

function between(min: number, max: number): number {
  return min + Math.random() * (max - min);
}

// Every drop lands before the 3 s are over: delay <= 0.8 s, fall <= 2.1 s.
function makeDrops(count: number): Drop[] {
  return Array.from({ length: count }, () => ({
    left: between(0, 100),
    delay: between(0, 0.8),
    duration: between(1.3, 2.1),
    size: between(0.6, 1.3),
  }));
}

function makeSparkles(count: number): Sparkle[] {
  return Array.from({ length: count }, () => ({
    left: between(5, 95),
    top: between(10, 80),
    delay: between(0, 1.8),
    size: between(0.75, 1.6),
  }));
}

/**
 * The water-drop celebration: 30 falling drops for a milestone; 50 drops, sparkles and a
 * 'Gefeliciteerd!' banner for completion. A fixed overlay with `pointer-events: none`,
 * so it never blocks the page. With `prefers-reduced-motion: reduce` it shows a static
 * banner instead. Either way `onDone` runs after `durationMs` (3 s).
 * To play again, remount it (give it a new `key`).
 */
/**
 * The centre of the moment: the earned badge, big, with its name and milestone; at completion with
 * 'Gefeliciteerd!' in the same card (not a pill over the page). Decorative for screen readers: the
 * message region announces 'Badge verdiend: {name}!'.
 */
function BadgeCard({ kind, badge, still }: { kind: CelebrationKind; badge: CelebrationBadge | null; still: boolean }) {
  const title = kind === "completion" ? COMPLETION_BANNER : still ? MILESTONE_BANNER : null;
  if (badge === null && title === null) return null;
  return (
    <div className={`kw-celebration__card${still ? " kw-celebration__card--still" : ""}`} aria-hidden="true">
      {title !== null && <p className="kw-celebration__banner">{title}</p>}
      {badge !== null && (
        <>
          {badge.imageUrl !== "" && <img className="kw-celebration__badge" src={badge.imageUrl} alt="" />}
          <p className="kw-celebration__badge-name">{badge.name}</p>
          <p className="kw-celebration__badge-milestone">{milestoneText(badge.milestone)}</p>
        </>
      )}
    </div>
  );
}

export function milestoneText(milestone: number): string {
  return `${milestone} plonsen`;
}

export function Celebration({
  kind,
  badge = null,
  onDone,
  durationMs = CELEBRATION_DURATION_MS,
}: CelebrationProps) {
  const reducedMotion = usePrefersReducedMotion();
  const drops = useMemo(() => makeDrops(CELEBRATION_DROPS[kind]), [kind]);
  const sparkles = useMemo(
    () => (kind === "completion" ? makeSparkles(CELEBRATION_SPARKLES) : []),
    [kind],
  );

  // Keep the latest callback without restarting the timer when the parent re-renders.
  const onDoneRef = useRef(onDone);
  useEffect(() => {
    onDoneRef.current = onDone;
  }, [onDone]);

  useEffect(() => {
    const timer = setTimeout(() => onDoneRef.current?.(), durationMs);
    return () => clearTimeout(timer);
  }, [durationMs]);

  if (reducedMotion) {
    return (
      <div
        className={`kw-celebration kw-celebration--${kind} kw-celebration--static`}
        data-testid="celebration"
      >
        <BadgeCard kind={kind} badge={badge} still />
      </div>
    );
  }

  return (
    <div className={`kw-celebration kw-celebration--${kind}`} data-testid="celebration">
      {drops.map((drop, index) => (
        <span
          key={index}
          className="kw-celebration__drop"
          aria-hidden="true"
          style={{
            left: `${drop.left.toFixed(2)}%`,
            width: `${drop.size.toFixed(2)}rem`,
            height: `${drop.size.toFixed(2)}rem`,
            animationDelay: `${drop.delay.toFixed(2)}s`,
            animationDuration: `${drop.duration.toFixed(2)}s`,
          }}
        />
      ))}
      {sparkles.map((sparkle, index) => (
        <span
          key={index}
          className="kw-celebration__sparkle"
          aria-hidden="true"
          style={{
            left: `${sparkle.left.toFixed(2)}%`,
            top: `${sparkle.top.toFixed(2)}%`,
            width: `${sparkle.size.toFixed(2)}rem`,
            height: `${sparkle.size.toFixed(2)}rem`,
            animationDelay: `${sparkle.delay.toFixed(2)}s`,
          }}
        />
      ))}
      <BadgeCard kind={kind} badge={badge} still={false} />
    </div>
  );
}
