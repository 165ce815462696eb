import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { postForm } from "../lib/api";
import { Button } from "../ui/button";
import { megabytes } from "./dip-form";
import { appendDetails, validateDetails, type DipDetailsValues } from "./dip-details";
import { DipDetailsFields } from "./dip-details-fields";
import { dipUrl } from "./dip-url";
import { SharePhotoField, appendSharePhoto } from "./share-photo-field";
import { DT } from "./details-texts";
import { T } from "./texts";
import type { ConditionErrors, ConditionLimits, Dip, UpdateDipResponse } from "./types";

export interface DipEditDialogProps {
  dip: Dip;
  endpoint: string;
  limits: ConditionLimits;
  suggestions: readonly string[];
  safetyNote: string;
  /** The server's upload limit, from the island's props. */
  maxPhotoBytes: number;
  onSaved: (dip: Dip, message: string) => void;
  onError: (message: string) => void;
  onClose: () => void;
}

export function detailsFromDip(dip: Dip): DipDetailsValues {
  const duration = dip.durationSeconds;
  const temperature = dip.waterTemperature;
  return {
    temperature: temperature === null ? "" : temperature.toFixed(1).replace(".", ","),
    minutes: duration === null ? "" : String(Math.floor(duration / 60)),
    seconds: duration === null ? "" : String(duration % 60).padStart(2, "0"),
    spot: dip.spot,
    note: dip.note,
  };
}

/** "Details aanpassen": the conditions and the photo of one of the member's dips, afterwards. */
export function DipEditDialog({
  dip,
  endpoint,
  limits,
  suggestions,
  safetyNote,
  maxPhotoBytes,
  onSaved,
  onError,
  onClose,
}: DipEditDialogProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const photoId = useId();
  const [values, setValues] = useState(() => detailsFromDip(dip));
  const [errors, setErrors] = useState<ConditionErrors>({});
  const [photo, setPhoto] = useState<File | null>(null);
  const [photoError, setPhotoError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [sharePhoto, setSharePhoto] = useState(dip.sharePhoto);
  const hasPhoto = dip.photoUrl !== null || photo !== null;

  useEffect(() => {
    const dialog = ref.current;
    if (dialog === null || dialog.open) return;
    if (typeof dialog.showModal === "function") dialog.showModal();
    else dialog.setAttribute("open", "");
  }, []);

  const close = () => {
    if (busy) return;
    const dialog = ref.current;
    if (dialog !== null && typeof dialog.close === "function" && dialog.open) dialog.close();
    else onClose();
  };

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = validateDetails(values, limits);
    setErrors(found);
    if (Object.keys(found).length > 0 || photoError !== null) return;
    setBusy(true);
    const form = new FormData();
    appendDetails(form, values);
    if (photo !== null) form.append("photo", photo, photo.name);
    if (hasPhoto) appendSharePhoto(form, sharePhoto);
    const result = await postForm<UpdateDipResponse>(dipUrl(endpoint, dip.id), form);
    setBusy(false);
    if (result.ok) {
      onSaved(result.data.dip, result.data.message);
      ref.current?.close?.();
      onClose();
      return;
    }
    // The server names the fields of conditions.py, the ones this form has.
    const fields = result.body?.fields as ConditionErrors | undefined;
    if (fields !== undefined) setErrors(fields);
    onError(result.status === 0 ? T.networkError : result.message);
  };

  return (
    <dialog
      ref={ref}
      className="dd-dialog"
      aria-labelledby={titleId}
      onClose={onClose}
      onCancel={(event) => {
        if (busy) event.preventDefault();
      }}
    >
      <form className="dd-dialog__form" onSubmit={(event) => void submit(event)} noValidate>
        <h2 id={titleId} className="dd-dialog__title">
          {DT.editTitle(dip.number)}
        </h2>
        <DipDetailsFields
          values={values}
          onChange={setValues}
          errors={errors}
          limits={limits}
          suggestions={suggestions}
          safetyNote={safetyNote}
          disabled={busy}
        />
        <div className="sc-field">
          <label htmlFor={photoId} className="sc-label">
            {DT.editPhoto} <span className="sc-optional">{T.photoOptional}</span>
          </label>
          {/* Like the stamp card's own picker: the native button speaks the browser's language. */}
          <input
            id={photoId}
            className="sc-file-input"
            name="photo"
            type="file"
            accept="image/*"
            disabled={busy}
            aria-invalid={photoError !== null || undefined}
            onChange={(event) => {
              const chosen = event.currentTarget.files?.[0] ?? null;
              const tooLarge = chosen !== null && chosen.size > maxPhotoBytes;
              setPhotoError(tooLarge ? T.photoTooLarge(megabytes(maxPhotoBytes)) : null);
              setPhoto(tooLarge ? null : chosen);
            }}
          />
          <label htmlFor={photoId} className="sc-file-button" aria-hidden="true">
            {photo === null ? T.photoChoose : T.photoChooseOther}
          </label>
          {photo !== null && <span className="sc-preview__name">{photo.name}</span>}
          {photoError !== null && (
            <p className="sc-error" role="alert">
              {photoError}
            </p>
          )}
          {hasPhoto && <SharePhotoField checked={sharePhoto} disabled={busy} onChange={setSharePhoto} />}
        </div>
        <div className="dd-dialog__actions">
          <Button variant="secondary" onClick={close} disabled={busy}>
            {DT.cancel}
          </Button>
          <Button type="submit" busy={busy} busyLabel={DT.saving}>
            {DT.save}
          </Button>
        </div>
      </form>
    </dialog>
  );
}
