/**
 * A tap's photo, sent after its dip: the stamp card registers the dip at once (register-dip.ts) and this
 * sends the photo to the stored dip when the phone has shrunk it (`POST /challenge/plons/<id>` with
 * `photo_after_tap`: only the photo and its share choice; the server keeps a photo the dip has already).
 *
 * The photo is never dropped on a failure: without an answer, or while the server is busy or failing (429,
 * 5xx), or without a session, it waits in the phone's queue (lib/offline-queue.ts, `dipId`) for its member
 * and goes from there (the `online` event, every 30 s, the service worker's Background Sync). A refusal that
 * another try will not change (a file that is no photo) is said in Dutch, with "Opnieuw proberen"; a phone
 * without IndexedDB gets that too. The dip counts either way.
 *
 * Loaded when a photo is chosen (dip-form.tsx), so a dip without one never carries it.
 */
import type { Dispatch, SetStateAction } from "react";
import { getCsrfToken, postForm } from "../lib/api";
import { tellWorkerDipStored } from "../lib/kept-pages";
import { REFUSAL } from "../lib/refusal-codes";
import { Button } from "../ui/button";
import { megabytes } from "./dip-form";
import { dipUrl } from "./dip-url";
import { canQueueTaps, type OfflineTaps } from "./offline-taps";
import { DIP_SEND_TIMEOUT_MS, type PhotoJob } from "./register-dip";
import { appendSharePhoto } from "./share-photo-field";
import { T } from "./texts";
import type { Dip, StampCardData, UpdateDipResponse } from "./types";
import "./photo-after.css";

export const PT = {
  sending: "Foto wordt toegevoegd…",
  queued:
    "Je plons telt. Je foto kon nog niet mee: hij is bewaard op je telefoon en wordt vanzelf toegevoegd zodra de verbinding het toelaat.",
  failed: (reason: string) => `Je plons telt, maar de foto is niet toegevoegd. ${reason}`,
  retry: "Opnieuw proberen",
} as const;

/** What the card says about the photo of its latest dip with one (stamp-card.tsx shows it). */
export interface PhotoAfterState {
  dipId: number;
  kind: "sending" | "stored" | "queued" | "failed";
  message: string;
  /** The stored dip (its thumbnail). */
  dip?: Dip;
  /** "Opnieuw proberen": the same photo again (kept in memory). */
  retry?: () => void;
}

export interface PhotoAfterDeps {
  card: Pick<StampCardData, "userChallengeId" | "endpoints" | "photoMaxBytes" | "member">;
  queueTap: OfflineTaps["queueTap"];
  /** The server's answer: the dip with its photo. */
  onStored: (answer: UpdateDipResponse) => void;
  setState: Dispatch<SetStateAction<PhotoAfterState | null>>;
}

/** The answers after which the photo waits on the phone and goes again by itself. */
function goesAgainLater(status: number, code: string | undefined): boolean {
  return status === 0 || status === 401 || status === 403 || status === 429 || status >= 500 || code === REFUSAL.otherMember;
}

/** Sends `job`'s photo to its dip once it has shrunk; every outcome lands in the card's state. */
export async function photoAfterSend(job: PhotoJob, deps: PhotoAfterDeps): Promise<void> {
  const { dipId } = job;
  const { card } = deps;
  deps.setState({ dipId, kind: "sending", message: PT.sending });
  // Later news of this photo only while the card still shows it (a newer dip's photo takes its place).
  const report = (next: PhotoAfterState | null) =>
    deps.setState((current) => (current?.dipId === dipId ? next : current));
  const photo = await job.photo;
  const failed = (reason: string) =>
    report({
      dipId,
      kind: "failed",
      message: PT.failed(reason),
      retry: () => void photoAfterSend({ ...job, photo: Promise.resolve(photo) }, deps),
    });
  if (photo.size > card.photoMaxBytes) {
    failed(T.photoTooLarge(megabytes(card.photoMaxBytes)));
    return;
  }
  const endpoint = dipUrl(card.endpoints.updateDip, dipId);
  const form = new FormData();
  form.append("photo_after_tap", "1");
  appendSharePhoto(form, job.share);
  form.append("photo", photo, photo.name);
  const result = await postForm<UpdateDipResponse>(endpoint, form, { timeoutMs: DIP_SEND_TIMEOUT_MS });
  if (result.ok) {
    deps.onStored(result.data);
    // The photo is a write too: the worker holds back pages kept before it, so it keeps them again after it.
    tellWorkerDipStored();
    report({ dipId, kind: "stored", message: result.data.message, dip: result.data.dip });
    return;
  }
  const code = result.body?.code;
  // Undone meanwhile: there is no dip left to add it to.
  if (code === REFUSAL.dipUnknown) {
    report(null);
    return;
  }
  if (goesAgainLater(result.status, code) && canQueueTaps()) {
    try {
      await deps.queueTap({
        requestId: `photo-${dipId}`,
        tappedAt: new Date().toISOString(),
        userChallengeId: card.userChallengeId,
        ...(card.member === "" ? {} : { member: card.member }),
        endpoint,
        csrfToken: getCsrfToken(),
        photo,
        photoName: photo.name,
        details: { share_photo: job.share ? "1" : "0" },
        dipId,
      });
      report({ dipId, kind: "queued", message: PT.queued });
      return;
    } catch {
      // No room on the phone: say so, with "Opnieuw proberen".
    }
  }
  failed(result.status === 0 ? T.networkError : result.message);
}

/** The calm line under "Plons registreren" while the photo goes up, and after. */
export function PhotoAfterStatus({ state }: { state: PhotoAfterState }) {
  const thumbnail = state.dip?.thumbnailUrl ?? null;
  return (
    <div className={state.kind === "failed" ? "sc-photo-after sc-photo-after--failed" : "sc-photo-after"}>
      {thumbnail !== null && <img className="sc-photo-after__thumb" src={thumbnail} alt="" width={48} height={48} />}
      <p className="sc-photo-after__text">{state.message}</p>
      {state.retry !== undefined && (
        <Button variant="secondary" onClick={state.retry}>
          {PT.retry}
        </Button>
      )}
    </div>
  );
}
