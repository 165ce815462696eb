import { useId } from "react";

/** "Deel deze foto met de club": off by default; the club feed (/club) shows a shared photo to signed-in members. */
export const SHARE_PHOTO_LABEL = "Deel deze foto met de club";
export const SHARE_PHOTO_HELP = "Alleen clubgenoten zien hem, en alleen als je je plonsen deelt met de club.";

export interface SharePhotoFieldProps {
  checked: boolean;
  disabled: boolean;
  onChange: (checked: boolean) => void;
}

export function SharePhotoField({ checked, disabled, onChange }: SharePhotoFieldProps) {
  const id = useId();
  const helpId = useId();
  return (
    <div className="sc-share">
      <input
        id={id}
        type="checkbox"
        name="share_photo"
        checked={checked}
        disabled={disabled}
        aria-describedby={helpId}
        onChange={(event) => onChange(event.currentTarget.checked)}
      />
      <label htmlFor={id}>{SHARE_PHOTO_LABEL}</label>
      <p id={helpId} className="field-help sc-share__help">
        {SHARE_PHOTO_HELP}
      </p>
    </div>
  );
}

/** The form field the server reads (apps/challenges/services/sharing.py share_photo_parse). */
export function appendSharePhoto(form: FormData, share: boolean): void {
  form.append("share_photo", share ? "1" : "0");
}
