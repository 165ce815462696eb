import type { CelebrationKind } from "../lib/celebrate";

/** Props of the stamp card island, built by `stamp_card_props` in apps/challenges/card_payloads.py. */
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
  /** The member's own log of the dip (null or "" when not logged; see apps/challenges/conditions.py). */
  waterTemperature: number | null;
  durationSeconds: number | null;
  /** "2:30"; "" when not logged. */
  durationDisplay: string;
  spot: string;
  note: string;
  /** "4,5 °C · 2:30 · Strand Scheveningen": the parts that were logged; "" when none. */
  conditionsDisplay: string;
  /** "Afgetekend door {organisator}": a dip an organiser signed off at a club swim; null for the member's own. */
  signedOffBy: string | null;
  /** ISO time until which the server takes the dip back, if it is still the card's latest. */
  undoUntil: string;
  /** "Deel deze foto met de club": the photo shows in the club feed (while the member shares dips). */
  sharePhoto: boolean;
  /** "Met Anna en Bram": the clubmates the dip was swum with (its buddies); "" when none. */
  buddiesDisplay: string;
}

/** The limits of the details form: the server's own (it checks again). */
export interface ConditionLimits {
  temperatureMin: number;
  temperatureMax: number;
  durationMinSeconds: number;
  durationMaxSeconds: number;
  spotMaxLength: number;
  noteMaxLength: number;
  /** The server's Dutch message per field (conditions.py): one home for each. */
  messages: Record<ConditionField, string>;
}

export type ConditionField = "water_temperature" | "duration_seconds" | "spot" | "note";
/** Dutch message per wrong field, as the server's 400 answer `fields` gives them. */
export type ConditionErrors = Partial<Record<ConditionField, string>>;

export interface Badge {
  id: number;
  name: string;
  description: string;
  milestone: number;
  /** May be "" when the badge has no image. */
  imageUrl: string;
  earned: boolean;
  earnedAtDisplay: string | null;
  /** The physical badge's status, e.g. "Fysieke badge: nog te versturen"; null while not earned. */
  physicalStatusDisplay: string | null;
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
  endpoints: {
    registerDip: string;
    /** With 0 in place of the dip id (see dipUrl). */
    updateDip: string;
    undoDip: string;
  };
  /** The member's own earlier spots, latest first. */
  spotSuggestions: string[];
  /** The limits of apps/challenges/conditions.py: the island has no copy of its own. */
  conditionLimits: ConditionLimits;
  safetyNote: string;
  /** The server's upload limit (settings.PHOTO_MAX_BYTES); the server checks again. */
  photoMaxBytes: number;
  /** The longest side the server stores a photo at (apps/challenges/photos.py MAX_SIDE): the phone
   * shrinks a photo to it before sending. */
  photoMaxSide: number;
  /** The signed-in member's opaque mark (the X-Koud-Member of their pages): taps queued on this phone
   * carry it and are only sent with this member's session. */
  member: string;
  /** The server's message for a file that is no photo, shown before the upload. */
  photoNotImageMessage: string;
}

/** 200 answer of `endpoints.updateDip`. */
export interface UpdateDipResponse {
  message: string;
  dip: Dip;
}

/** 200 answer of `endpoints.undoDip`: the card as the server now has it. */
export interface UndoDipResponse {
  message: string;
  card: StampCardData;
}

export interface ServerToast {
  text: string;
  durationMs: number;
}

/** One swim, one stamp: "new" a stamp was added; "confirmed" the dip of this swim was on the card already
 * (the answer's `dip` is that one, nothing was added). */
export type DipOutcomeCode = "new" | "confirmed";

/** 201 answer of `endpoints.registerDip` (200 for a resend or a confirmed swim). */
export interface RegisterDipResponse {
  message: string;
  outcome: DipOutcomeCode;
  dip: Dip;
  dipCount: number;
  completed: boolean;
  completedAt: string | null;
  completedAtDisplay: string | null;
  badge: Badge | null;
  celebration: CelebrationKind | null;
  toasts: ServerToast[];
  /** One calm line for water below 5 °C or a dip without a buddy; never a reward. */
  advice: string | null;
}

/** Samen plonsen's part of the stamp card (`together-data`, apps/together/selectors.py). */
export interface TogetherData {
  /** The member's afspraak of about now: those who went along are offered in "Met wie?". */
  meetup: MeetupOffer | null;
  /** GET: the clubmates for "Met wie?" (BuddyCandidatesResponse). */
  buddiesUrl: string;
  briefing: SeasonBriefingData;
  warmUp: WarmUpData;
}

export interface MeetupOffer {
  place: string;
  startsAtDisplay: string;
  mates: MeetupMate[];
}

export interface MeetupMate {
  id: number;
  name: string;
}

export interface SeasonBriefingData {
  /** Not read since the season started: the card shows it once. */
  due: boolean;
  seasonStartDisplay: string;
  title: string;
  points: string[];
  /** POST: "Ik heb het gelezen" (BriefingReadResponse). */
  endpoint: string;
  safetyUrl: string;
}

export interface WarmUpData {
  title: string;
  tips: string[];
}

export interface BuddyCandidate {
  id: number;
  name: string;
  /** Named on a dip before, either way. */
  swumWith: boolean;
  /** Goes along with the member's afspraak of about now. */
  atMeetup: boolean;
}

export interface BuddyCandidatesResponse {
  candidates: BuddyCandidate[];
}

export interface BriefingReadResponse {
  read_on: string;
  message: string;
}
