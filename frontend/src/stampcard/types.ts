import type { CelebrationKind } from "../lib/celebrate";

/** Props of the stamp card island, built by `stamp_card_props` in apps/challenges/selectors.py. */
export type ChallengeCategory = "normal" | "waterdieren" | "special";

export interface Dip {
  id: number;
  /** 1-based position on the card. */
  number: number;
  /** ISO date (Europe/Amsterdam). */
  dipDate: string;
  /** Dutch, e.g. "21 november 2026". */
  dipDateDisplay: string;
  photoUrl: string | null;
  thumbnailUrl: string | null;
}

export interface Badge {
  id: number;
  name: string;
  description: string;
  milestone: number;
  /** May be "" when the badge has no image. */
  imageUrl: string;
  earned: boolean;
  earnedAtDisplay: string | null;
  /** The physical badge's status, e.g. "Fysieke badge: nog te versturen"; absent on older payloads. */
  physicalStatusDisplay?: string | null;
}

export interface StampCardData {
  userChallengeId: number;
  challenge: {
    name: string;
    description: string;
    category: ChallengeCategory;
    targetDips: number;
  };
  dipCount: number;
  completedAt: string | null;
  completedAtDisplay: string | null;
  milestones: number[];
  badges: Badge[];
  /** The latest 10, newest first. */
  recentDips: Dip[];
  /** Every dip with a photo, newest first. */
  photos: Dip[];
  endpoints: { registerDip: string };
}

export interface ServerToast {
  text: string;
  durationMs: number;
}

/** 201 answer of `endpoints.registerDip`. */
export interface RegisterDipResponse {
  message: string;
  dip: Dip;
  dipCount: number;
  completed: boolean;
  completedAt: string | null;
  completedAtDisplay: string | null;
  badge: Badge | null;
  celebration: CelebrationKind | null;
  toasts: ServerToast[];
}
