import type { CelebrationKind } from "../lib/celebrate";
import type { CelebrationBadge } from "../ui/celebration";
import type { Dip, RegisterDipResponse, StampCardData } from "./types";

/** The card keeps the latest 10 dips, as the server's props do. */
export const RECENT_DIPS = 10;

export interface CelebrationShown {
  kind: CelebrationKind;
  badge: CelebrationBadge | null;
  /** A new key per celebration: a second one while the first plays starts again. */
  key: number;
}

/** What the stamp card shows: the server's card, and the moment it just celebrated. */
export interface CardState {
  card: StampCardData;
  celebration: CelebrationShown | null;
  /** The dip that completed the card just came in: the 'Challenge Voltooid!' heading takes the focus. */
  focusCompletion: boolean;
}

export type CardAction =
  /** The server's answer to a dip, sent now or later from the phone's queue. */
  | { type: "dipStored"; answer: RegisterDipResponse }
  /** A dip's details or photo changed ('Details aanpassen'). */
  | { type: "dipSaved"; dip: Dip }
  /** The card as the server now has it ('Ongedaan maken'). */
  | { type: "cardReplaced"; card: StampCardData }
  | { type: "celebrationEnded" }
  | { type: "completionFocused" };

export function initialCardState(card: StampCardData): CardState {
  return { card, celebration: null, focusCompletion: false };
}

/** The card never judges: every change here is what the server answered. */
export function cardReducer(state: CardState, action: CardAction): CardState {
  switch (action.type) {
    case "dipStored": {
      const { answer } = action;
      const { dip, badge } = answer;
      const current = state.card;
      const kind = answer.celebration;
      return {
        card: {
          ...current,
          dipCount: answer.dipCount,
          completedAt: answer.completedAt,
          completedAtDisplay: answer.completedAtDisplay,
          // A confirmed swim is a dip the card has: updated where it stands, never a new one on top.
          recentDips:
            answer.outcome === "confirmed"
              ? current.recentDips.map((d) => (d.id === dip.id ? dip : d))
              : [dip, ...current.recentDips.filter((d) => d.id !== dip.id)].slice(0, RECENT_DIPS),
          photos: dip.photoUrl !== null ? [dip, ...current.photos.filter((d) => d.id !== dip.id)] : current.photos,
          badges:
            badge === null
              ? current.badges
              : current.badges.map((b) => (b.id === badge.id ? { ...b, ...badge, earned: true } : b)),
        },
        celebration:
          kind === null ? state.celebration : { kind, badge, key: (state.celebration?.key ?? 0) + 1 },
        focusCompletion: answer.completedAt !== null,
      };
    }
    case "dipSaved": {
      const saved = action.dip;
      const current = state.card;
      const replace = (list: readonly Dip[]) => list.map((d) => (d.id === saved.id ? saved : d));
      return {
        ...state,
        card: {
          ...current,
          recentDips: replace(current.recentDips),
          photos:
            saved.photoUrl !== null && !current.photos.some((d) => d.id === saved.id)
              ? [saved, ...current.photos].sort((a, b) => b.number - a.number)
              : replace(current.photos),
          spotSuggestions:
            saved.spot !== ""
              ? [saved.spot, ...current.spotSuggestions.filter((spot) => spot !== saved.spot)]
              : current.spotSuggestions,
        },
      };
    }
    case "cardReplaced":
      return { ...state, card: action.card };
    case "celebrationEnded":
      return { ...state, celebration: null };
    case "completionFocused":
      return { ...state, focusCompletion: false };
  }
}
