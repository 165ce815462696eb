/**
 * The celebration island listens on `window` for this event; any script on the page can
 * start the animation without importing React:
 *
 *   requestCelebration("milestone");
 *   // same as: window.dispatchEvent(new CustomEvent("koud:celebrate", { detail: { kind: "milestone" } }))
 */
export type CelebrationKind = "milestone" | "completion";

export const CELEBRATE_EVENT = "koud:celebrate";

export interface CelebrateDetail {
  kind: CelebrationKind;
}

declare global {
  interface WindowEventMap {
    "koud:celebrate": CustomEvent<CelebrateDetail>;
  }
}

export function isCelebrationKind(value: unknown): value is CelebrationKind {
  return value === "milestone" || value === "completion";
}

export function requestCelebration(kind: CelebrationKind): void {
  window.dispatchEvent(new CustomEvent<CelebrateDetail>(CELEBRATE_EVENT, { detail: { kind } }));
}

/** Spec section 9: the celebration lasts 3 s. */
export const CELEBRATION_DURATION_MS = 3000;

/** Falling drops per kind (spec, challenge screen). */
export const CELEBRATION_DROPS: Readonly<Record<CelebrationKind, number>> = {
  milestone: 30,
  completion: 50,
};

/** Sparkles shown for a completion only. */
export const CELEBRATION_SPARKLES = 16;

/** Exact text of the spec, shown for a completion. */
export const COMPLETION_BANNER = "Gefeliciteerd!";

/** Shown instead of the drops for a milestone when the user prefers reduced motion. */
export const MILESTONE_BANNER = "Mijlpaal bereikt!";
