import { useCallback, useRef, useState } from "react";
import { getCsrfToken, postForm, type ApiFailure, type ApiResult } from "../lib/api";
import { newRequestId } from "../lib/request-id";
import { signInUrlOf, useSignInRedirect } from "../lib/sign-in";
import { useSingleFlight } from "../lib/single-flight";
import { tellWorkerDipStored } from "../lib/kept-pages";
import { useSay } from "../ui/feedback";
import { appendDetails, type DipValues } from "./dip-details";
import { tappedAtFor } from "./forgotten-day";
import { megabytes } from "./dip-form";
import { canQueueTaps, type OfflineTaps } from "./offline-taps";
import { appendSharePhoto } from "./share-photo-field";
import { T } from "./texts";
import type { ConditionErrors, RegisterDipResponse, StampCardData } from "./types";

/**
 * How long a tap's upload may take before the card stops waiting and keeps the tap on the phone (sent
 * again later with the same request id); a photo sent after its dip gets as long. A shrunk photo (~250 KB)
 * needs about 3 s on slow 4G; the server's workers give up at 30 s. The queue's own resend waits longer (QUEUED_SEND_TIMEOUT_MS).
 */
export const DIP_SEND_TIMEOUT_MS = 25_000;

const NO_ERRORS: ConditionErrors = {};

/** Where one tap ends up: the machine's states after 'sending'. */
export type TapOutcome =
  /** The server stored it (or had stored it already: same request id). */
  | { kind: "stored"; answer: RegisterDipResponse }
  /** No answer (no signal, lost, timed out): the tap waits on the phone with its request id. */
  | { kind: "waits"; message: string }
  /** No answer and no place on this phone to wait: a retry reuses the request id. */
  | { kind: "unreachable" }
  /** The session is gone: say so and go to the sign-in page. */
  | { kind: "signedOut"; failure: ApiFailure }
  /** The server said no (and why, per field where it can): the next tap is a new one. */
  | { kind: "refused"; message: string; fields: ConditionErrors };

/** The server's answer to a tap, as a state of the machine (a pure function: the server judges). */
export function tapOutcome(
  result: ApiResult<RegisterDipResponse>,
  { canWait, online, photoMaxBytes }: { canWait: boolean; online: boolean; photoMaxBytes: number },
): TapOutcome {
  if (result.ok) return { kind: "stored", answer: result.data };
  if (result.status === 0) {
    if (!canWait) return { kind: "unreachable" };
    // Should the server have stored it after all, the resend (same request id) is answered with that dip.
    return { kind: "waits", message: online ? T.queuedAfterFailure : T.queued };
  }
  if (signInUrlOf(result) !== null) return { kind: "signedOut", failure: result };
  // A proxy in front of Django may refuse a big upload with its own (HTML) 413 page.
  const tooLarge = result.status === 413 && result.body === null;
  return {
    kind: "refused",
    message: tooLarge ? T.photoTooLarge(megabytes(photoMaxBytes)) : result.message,
    // The server names the fields of conditions.py, the ones the details form has.
    fields: (result.body?.fields as ConditionErrors | undefined) ?? NO_ERRORS,
  };
}

/** The form's fields as one value each, for the queue; a field sent more than once (`buddies`) joined with
 * commas, which the server reads the same way. */
export function fieldsRecord(fields: FormData): Record<string, string> {
  const record: Record<string, string> = {};
  for (const [name, value] of fields.entries()) {
    record[name] = name in record ? `${record[name]},${String(value)}` : String(value);
  }
  return record;
}

/** A tap's photo, still shrinking on the phone (lib/photo-shrink) when the tap goes. */
export type TapPhoto = Promise<File>;

/** A photo to send to its dip once it has shrunk (photo-after.tsx): the dip did not wait for it. */
export interface PhotoJob {
  dipId: number;
  photo: TapPhoto;
  share: boolean;
}

export interface RegisterDip {
  /** A tap is under way, or the page is on its way to the sign-in page. */
  busy: boolean;
  /** The server's message per wrong field after its last refusal. */
  serverErrors: ConditionErrors;
  /** One tap: resolves to true when the dip is stored or waits on the phone (the form then resets). */
  register: (photo: TapPhoto | null, details: DipValues, sharePhoto?: boolean) => Promise<boolean>;
}

interface Options {
  card: Pick<StampCardData, "userChallengeId" | "endpoints" | "photoMaxBytes" | "member">;
  queueTap: OfflineTaps["queueTap"];
  onStored: (answer: RegisterDipResponse) => void;
  /** The dip is stored: its photo goes now, to the dip (the tap did not wait for the shrinking and upload). */
  onPhotoAfter: (job: PhotoJob) => void;
}

/**
 * Registering a dip: idle → sending → stored | waits on the phone | unreachable | refused | signed out.
 * One tap at a time (lib/single-flight): a tap while one is under way sends nothing.
 *
 * Online, the dip goes at once without its photo (a small request: "Plons toegevoegd!" within a round trip
 * or two on a slow line) and the photo follows to the stored dip when the phone has shrunk it
 * (`onPhotoAfter`). A tap that waits on the phone (no signal, no answer) keeps its photo in the tap.
 */
export function useRegisterDip({ card, queueTap, onStored, onPhotoAfter }: Options): RegisterDip {
  const say = useSay();
  const [sending, run] = useSingleFlight();
  const { leaving, leaveIfSignedOut } = useSignInRedirect();
  const [serverErrors, setServerErrors] = useState<ConditionErrors>(NO_ERRORS);
  // One id per dip the member means to add: a retry after a lost answer reuses it, and the server then
  // answers with the dip it already stored instead of adding a second one.
  const requestId = useRef<string | null>(null);
  const { userChallengeId, photoMaxBytes, member } = card;
  const endpoint = card.endpoints.registerDip;

  /** Keeps the tap on the phone; it is sent (same request id, tap time) when the connection is back. */
  const wait = useCallback(
    async (id: string, photo: File | null, details: DipValues, message: string, sharePhoto = false) => {
      const fields = new FormData();
      appendDetails(fields, details);
      if (photo !== null) appendSharePhoto(fields, sharePhoto);
      try {
        await queueTap({
          requestId: id,
          tappedAt: tappedAtFor(details.daysAgo ?? 0).toISOString(),
          userChallengeId,
          ...(member === "" ? {} : { member }),
          endpoint,
          csrfToken: getCsrfToken(),
          photo,
          photoName: photo?.name ?? null,
          details: fieldsRecord(fields),
        });
      } catch {
        say(T.networkError, "error");
        return false;
      }
      say(message, "info");
      return true;
    },
    [queueTap, userChallengeId, member, endpoint, say],
  );

  const send = useCallback(
    async (photo: TapPhoto | null, details: DipValues, sharePhoto = false): Promise<boolean> => {
      const id = (requestId.current ??= newRequestId());
      if (navigator.onLine === false && canQueueTaps()) {
        requestId.current = null;
        return wait(id, await photo, details, T.queued, sharePhoto);
      }
      const form = new FormData();
      form.append("request_id", id);
      // A forgotten dip of yesterday or the day before: the server counts it then (its rules judge that day).
      if ((details.daysAgo ?? 0) > 0) form.append("tapped_at", tappedAtFor(details.daysAgo ?? 0).toISOString());
      appendDetails(form, details);
      const result = await postForm<RegisterDipResponse>(endpoint, form, { timeoutMs: DIP_SEND_TIMEOUT_MS });
      const outcome = tapOutcome(result, { canWait: canQueueTaps(), online: navigator.onLine !== false, photoMaxBytes });
      if (outcome.kind !== "unreachable") requestId.current = null;
      setServerErrors(outcome.kind === "refused" ? outcome.fields : NO_ERRORS);
      switch (outcome.kind) {
        case "stored":
          onStored(outcome.answer);
          tellWorkerDipStored(); // the kept pages with the new count: the next visit opens at once
          if (photo !== null) onPhotoAfter({ dipId: outcome.answer.dip.id, photo, share: sharePhoto });
          return true;
        case "waits":
          return wait(id, await photo, details, outcome.message, sharePhoto);
        case "unreachable":
          say(T.networkError, "error");
          return false;
        case "signedOut":
          say(outcome.failure.message, "error");
          leaveIfSignedOut(outcome.failure);
          return false;
        case "refused":
          say(outcome.message, "error");
          return false;
      }
    },
    [endpoint, photoMaxBytes, wait, onStored, onPhotoAfter, say, leaveIfSignedOut],
  );

  const register = useCallback(
    async (photo: TapPhoto | null, details: DipValues, sharePhoto = false): Promise<boolean> => {
      // Nothing more to send without a session: the page is about to go. (A photo over the limit was
      // refused when it was chosen; the shrinking only makes it smaller.)
      if (leaving) return false;
      return (await run(() => send(photo, details, sharePhoto))) ?? false;
    },
    [leaving, run, send],
  );

  return { busy: sending || leaving, serverErrors, register };
}
