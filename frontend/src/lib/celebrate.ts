/** The celebration the server asks for after a dip (`celebration` in the register-dip answer). */
export type CelebrationKind = "milestone" | "completion";

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
