import { Suspense, lazy, useEffect, useId, useRef, useState, type FormEvent } from "react";
import { Button } from "../ui/button";
import { ChunkBoundary } from "../ui/chunk-boundary";
import { ForgottenDay, type DaysAgo } from "./forgotten-day";
import { PhotoPreview } from "./photo-preview";
import { SharePhotoField } from "./share-photo-field";
import { EMPTY_DETAILS, validateDetails, type DipValues } from "./dip-details";
import { T } from "./texts";
import type { TapPhoto } from "./register-dip";
import type { ConditionErrors, ConditionLimits } from "./types";

// The folded fields load right after the island (they start closed): the card's first load stays small.
// Only the fields load later: the folded part itself is drawn at once, so a member who opens it before the
// fields arrive keeps it open.
const DipDetailsFields = lazy(() =>
  import("./dip-details-fields").then((module) => ({ default: module.DipDetailsFields })),
);

// "Met wie?" (apps/together) loads with the folded part too: only when the member opens it.
const BuddyPicker = lazy(() => import("./together").then((module) => ({ default: module.BuddyPicker })));

/** What the folded "Details (optioneel)" part needs from the page's props. */
export interface DipDetailsConfig {
  limits: ConditionLimits;
  suggestions: readonly string[];
  safetyNote: string;
  /** The server's message per wrong field after a refused dip. */
  serverErrors: ConditionErrors;
  /** "Met wie?" (apps/together): where the clubmates come from; null without it. */
  buddiesUrl?: string | null;
  /** Those who went along with the member's afspraak of about now: offered, ticked, in "Met wie?". */
  offeredBuddies?: readonly number[];
}

export interface DipFormProps {
  /** The form's id: "Plons registreren" stands outside it (the stamp card's sticky action, `form=`). */
  formId: string;
  busy: boolean;
  /** The server's limit, from the island's props. */
  maxPhotoBytes: number;
  /** The longest side the server stores (props): the photo is shrunk to it on the phone. */
  maxPhotoSide: number;
  /** The server's message for a file that is no photo (apps/challenges/photos.py). */
  notAnImageMessage: string;
  /** Sends the dip; resolves to true when the server stored it or it waits on the phone (the form then resets).
   * The photo may still be shrinking: the dip does not wait for it (register-dip.ts). */
  onRegister: (photo: TapPhoto | null, details: DipValues, sharePhoto?: boolean) => Promise<boolean>;
  details: DipDetailsConfig;
}

/** 'Voeg plons toe': an optional photo with a preview and optional details. 'Plons registreren' is
 * DipAction, outside the form (its `form` attribute names it) so that it can stay in reach on a phone. */
export function DipForm({
  formId,
  busy,
  maxPhotoBytes,
  maxPhotoSide,
  onRegister,
  notAnImageMessage,
  details,
}: DipFormProps) {
  const inputRef = useRef<HTMLInputElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const [file, setFile] = useState<File | null>(null);
  // The shrunk photo is made as soon as it is chosen, so the tap itself only waits for the upload.
  const prepared = useRef<{ source: File; photo: Promise<File> } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const offered = details.offeredBuddies ?? [];
  const [detailValues, setDetailValues] = useState<DipValues>({ ...EMPTY_DETAILS, buddies: offered });
  const [detailErrors, setDetailErrors] = useState<ConditionErrors>({});
  // Open from the start when clubmates of an afspraak are offered: the member sees whom "Met wie?" names.
  const [detailsOpen, setDetailsOpen] = useState(offered.length > 0);
  const [sharePhoto, setSharePhoto] = useState(false);
  const [daysAgo, setDaysAgo] = useState<DaysAgo>(0);
  useEffect(() => setDetailErrors(details.serverErrors), [details.serverErrors]);
  const inputId = useId();
  const helpId = useId();
  const errorId = useId();

  const clear = () => {
    setFile(null);
    setSharePhoto(false);
    prepared.current = null;
    if (inputRef.current !== null) inputRef.current.value = "";
  };

  const choose = (chosen: File | null) => {
    if (chosen !== null && chosen.size > maxPhotoBytes) {
      clear();
      setError(T.photoTooLarge(megabytes(maxPhotoBytes)));
      return;
    }
    // The picker asks for images, but "all files" is one tap away: say it now, not after the upload.
    if (chosen !== null && chosen.type !== "" && !chosen.type.startsWith("image/")) {
      clear();
      setError(notAnImageMessage);
      return;
    }
    setError(null);
    setFile(chosen);
    // The shrinking code loads with the first photo chosen, and so does the part that sends the photo after
    // its dip (photo-after.tsx): a dip without one never needs them. Should the shrinking not load, the
    // photo goes as it is (the server shrinks it too).
    if (chosen !== null) void import("./photo-after").catch(() => undefined);
    prepared.current =
      chosen === null
        ? null
        : {
            source: chosen,
            photo: import("../lib/photo-shrink")
              .then(({ shrinkPhoto }) => shrinkPhoto(chosen, { maxSide: maxPhotoSide }))
              .catch(() => chosen),
          };
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = validateDetails(detailValues, details.limits);
    setDetailErrors(found);
    if (Object.keys(found).length > 0) return;
    const photo = file === null ? null : prepared.current?.source === file ? prepared.current.photo : Promise.resolve(file);
    if (await onRegister(photo, { ...detailValues, daysAgo }, photo !== null && sharePhoto)) {
      clear();
      setDaysAgo(0);
      setError(null);
      setDetailValues({ ...EMPTY_DETAILS, buddies: offered });
      setDetailErrors({});
    }
  };

  // The button is disabled while sending, which drops keyboard focus: give it back after.
  const wasBusy = useRef(false);
  useEffect(() => {
    const active = document.activeElement;
    if (wasBusy.current && !busy && (active === null || active === document.body)) {
      // `elements` holds the submit button too, though it stands outside the form (its `form` attribute).
      const submitButton = Array.from(formRef.current?.elements ?? []).find(
        (element): element is HTMLButtonElement => element instanceof HTMLButtonElement && element.type === "submit",
      );
      submitButton?.focus();
    }
    wasBusy.current = busy;
  }, [busy]);

  return (
    <form id={formId} ref={formRef} className="sc-form" onSubmit={(event) => void submit(event)} noValidate>
      <div className="sc-field">
        <label htmlFor={inputId}>
          {T.photoLabel} <span className="optional">{T.photoOptional}</span>
        </label>
        {/* The native picker's button speaks the browser's language, not the page's: it is hidden
            (still focusable) behind a Dutch button-styled label. */}
        <input
          ref={inputRef}
          id={inputId}
          className="sc-file-input"
          name="photo"
          type="file"
          accept="image/*"
          disabled={busy}
          aria-describedby={error === null ? helpId : `${errorId} ${helpId}`}
          aria-invalid={error !== null || undefined}
          onChange={(event) => choose(event.currentTarget.files?.[0] ?? null)}
        />
        <label htmlFor={inputId} className="sc-file-button" aria-hidden="true">
          <svg className="sc-file-icon" viewBox="0 0 24 24" width="20" height="20" focusable="false">
            <path
              d="M9 4 7.5 6H5a2 2 0 0 0-2 2v10a2 2 0 0 0 2 2h14a2 2 0 0 0 2-2V8a2 2 0 0 0-2-2h-2.5L15 4H9Zm3 5a4 4 0 1 1 0 8 4 4 0 0 1 0-8Z"
              fill="currentColor"
            />
          </svg>
          {file === null ? T.photoChoose : T.photoChooseOther}
        </label>
        <p id={helpId} className="field-help">
          {T.photoHelp}
        </p>
        {error !== null && (
          <p id={errorId} className="field-error" role="alert">
            {error}
          </p>
        )}
        {file !== null && (
          <PhotoPreview
            file={file}
            busy={busy}
            onRemove={() => {
              clear();
              inputRef.current?.focus();
            }}
          />
        )}
        {file !== null && <SharePhotoField checked={sharePhoto} disabled={busy} onChange={setSharePhoto} />}
      </div>
      <details
        className="dd-details"
        open={detailsOpen || Object.keys(detailErrors).length > 0}
        onToggle={(event) => setDetailsOpen(event.currentTarget.open)}
      >
        <summary className="dd-summary">{T.detailsSummary}</summary>
        <ChunkBoundary message={T.partNotLoaded}>
          <Suspense fallback={null}>
            <DipDetailsFields
              values={detailValues}
              onChange={setDetailValues}
              errors={detailErrors}
              limits={details.limits}
              suggestions={details.suggestions}
              safetyNote={details.safetyNote}
              disabled={busy}
            />
          </Suspense>
        </ChunkBoundary>
        {details.buddiesUrl && (detailsOpen || (detailValues.buddies ?? []).length > 0) && (
          <ChunkBoundary message={T.partNotLoaded}>
            <Suspense fallback={null}>
              <BuddyPicker
                url={details.buddiesUrl}
                selected={detailValues.buddies ?? []}
                onChange={(buddies) => setDetailValues((values) => ({ ...values, buddies }))}
                disabled={busy}
              />
            </Suspense>
          </ChunkBoundary>
        )}
      </details>
      <ForgottenDay value={daysAgo} disabled={busy} onChange={setDaysAgo} />
    </form>
  );
}

/** 'Plons registreren', the card's main action: after the form, sticky above the phone's tab bar (stampcard.css)
 * so that it is in reach when the page opens, whatever stands above it (the season's briefing, a photo). */
export function DipAction({ formId, busy }: { formId: string; busy: boolean }) {
  return (
    <div className="sc-action">
      <Button type="submit" form={formId} className="btn-lg btn-block" busy={busy} busyLabel={T.uploading}>
        {T.register}
      </Button>
    </div>
  );
}

/** Whole megabytes, as the server words its own message. */
export function megabytes(bytes: number): number {
  return Math.floor(bytes / (1024 * 1024));
}
