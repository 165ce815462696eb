import { useId } from "react";
import { T } from "./texts";
import type { ConditionErrors, ConditionField, ConditionLimits, Dip } from "./types";
import "./dip-details.css";

/** What the member typed, as typed: the server parses and judges it again. */
export interface DipDetailsValues {
  temperature: string;
  minutes: string;
  seconds: string;
  spot: string;
  note: string;
}

export const EMPTY_DETAILS: DipDetailsValues = { temperature: "", minutes: "", seconds: "", spot: "", note: "" };

/** Used when the page's props carry no limits (an older server): the server's own values. */
export const DEFAULT_LIMITS: ConditionLimits = {
  temperatureMin: -2,
  temperatureMax: 35,
  durationMinSeconds: 10,
  durationMaxSeconds: 3600,
  spotMaxLength: 80,
  noteMaxLength: 280,
};

export function detailsFromDip(dip: Dip): DipDetailsValues {
  const duration = dip.durationSeconds ?? null;
  const temperature = dip.waterTemperature ?? null;
  return {
    temperature: temperature === null ? "" : temperature.toFixed(1).replace(".", ","),
    minutes: duration === null ? "" : String(Math.floor(duration / 60)),
    seconds: duration === null ? "" : String(duration % 60).padStart(2, "0"),
    spot: dip.spot ?? "",
    note: dip.note ?? "",
  };
}

export function hasDetails(values: DipDetailsValues): boolean {
  return Object.values(values).some((value) => value.trim() !== "");
}

/** "4,5" → 4.5; null for empty; NaN for unreadable or more than one decimal. */
export function parseTemperature(text: string): number | null {
  const clean = text.trim().replace(",", ".").replace("−", "-");
  if (clean === "") return null;
  return /^-?\d{1,2}(\.\d)?$/.test(clean) ? Number(clean) : Number.NaN;
}

/** Minutes and seconds → whole seconds; null when both are empty; NaN when unreadable. */
export function parseDuration(minutes: string, seconds: string): number | null {
  const m = minutes.trim();
  const s = seconds.trim();
  if (m === "" && s === "") return null;
  if (!/^\d{0,2}$/.test(m) || !/^\d{0,2}$/.test(s) || Number(s) > 59) return Number.NaN;
  return Number(m || "0") * 60 + Number(s || "0");
}

export function validateDetails(values: DipDetailsValues, limits: ConditionLimits): ConditionErrors {
  const errors: ConditionErrors = {};
  const temperature = parseTemperature(values.temperature);
  if (temperature !== null && !(temperature >= limits.temperatureMin && temperature <= limits.temperatureMax)) {
    errors.water_temperature = T.temperatureInvalid;
  }
  const duration = parseDuration(values.minutes, values.seconds);
  if (duration !== null && !(duration >= limits.durationMinSeconds && duration <= limits.durationMaxSeconds)) {
    errors.duration_seconds = T.durationInvalid;
  }
  if (values.spot.trim().length > limits.spotMaxLength) errors.spot = T.spotTooLong(limits.spotMaxLength);
  if (values.note.trim().length > limits.noteMaxLength) errors.note = T.noteTooLong(limits.noteMaxLength);
  return errors;
}

/** The fields `POST /challenge/plons` and the edit endpoint read (empty = not logged). */
export function appendDetails(form: FormData, values: DipDetailsValues): void {
  const duration = parseDuration(values.minutes, values.seconds);
  form.append("water_temperature", values.temperature.trim());
  form.append("duration_seconds", duration === null || Number.isNaN(duration) ? "" : String(duration));
  form.append("spot", values.spot.trim());
  form.append("note", values.note.trim());
}

export interface DipDetailsFieldsProps {
  values: DipDetailsValues;
  onChange: (values: DipDetailsValues) => void;
  errors: ConditionErrors;
  limits: ConditionLimits;
  suggestions: readonly string[];
  safetyNote: string;
  disabled?: boolean;
}

/** The four optional fields of a dip. Used folded on the stamp card and open in the edit dialog. */
export function DipDetailsFields({
  values,
  onChange,
  errors,
  limits,
  suggestions,
  safetyNote,
  disabled = false,
}: DipDetailsFieldsProps) {
  const id = useId();
  const set = (key: keyof DipDetailsValues) => (value: string) => onChange({ ...values, [key]: value });
  const describe = (field: ConditionField, help?: string) =>
    [errors[field] !== undefined ? `${id}-${field}-error` : null, help ?? null].filter(Boolean).join(" ") ||
    undefined;
  const error = (field: ConditionField) =>
    errors[field] === undefined ? null : (
      <p id={`${id}-${field}-error`} className="sc-error">
        {errors[field]}
      </p>
    );
  const noteLeft = limits.noteMaxLength - values.note.length;

  return (
    <div className="dd-fields">
      <div className="sc-field">
        <label htmlFor={`${id}-temperature`} className="sc-label">
          {T.temperatureLabel}
        </label>
        <input
          id={`${id}-temperature`}
          className="dd-input dd-input--short"
          name="water_temperature"
          type="text"
          inputMode="decimal"
          autoComplete="off"
          placeholder="4,5"
          value={values.temperature}
          disabled={disabled}
          aria-invalid={errors.water_temperature !== undefined || undefined}
          aria-describedby={describe("water_temperature", `${id}-temperature-help`)}
          onChange={(event) => set("temperature")(event.currentTarget.value)}
        />
        <p id={`${id}-temperature-help`} className="sc-help">
          {T.temperatureHelp}
        </p>
        {error("water_temperature")}
      </div>

      <fieldset
        className="sc-field dd-duration"
        aria-describedby={describe("duration_seconds", `${id}-safety`)}
        aria-invalid={errors.duration_seconds !== undefined || undefined}
      >
        <legend className="sc-label">{T.durationLabel}</legend>
        <div className="dd-duration__inputs">
          <label className="dd-duration__part">
            <input
              className="dd-input dd-input--tiny"
              name="duration_minutes"
              type="text"
              inputMode="numeric"
              autoComplete="off"
              placeholder="2"
              maxLength={2}
              value={values.minutes}
              disabled={disabled}
              onChange={(event) => set("minutes")(event.currentTarget.value)}
            />
            <span>{T.durationMinutes}</span>
          </label>
          <label className="dd-duration__part">
            <input
              className="dd-input dd-input--tiny"
              name="duration_seconds_part"
              type="text"
              inputMode="numeric"
              autoComplete="off"
              placeholder="30"
              maxLength={2}
              value={values.seconds}
              disabled={disabled}
              onChange={(event) => set("seconds")(event.currentTarget.value)}
            />
            <span>{T.durationSeconds}</span>
          </label>
        </div>
        {error("duration_seconds")}
        <p id={`${id}-safety`} className="dd-safety">
          <span aria-hidden="true">⚠️ </span>
          {safetyNote}
        </p>
      </fieldset>

      <div className="sc-field">
        <label htmlFor={`${id}-spot`} className="sc-label">
          {T.spotLabel}
        </label>
        <input
          id={`${id}-spot`}
          className="dd-input"
          name="spot"
          type="text"
          autoComplete="off"
          list={suggestions.length > 0 ? `${id}-spots` : undefined}
          maxLength={limits.spotMaxLength}
          value={values.spot}
          disabled={disabled}
          aria-invalid={errors.spot !== undefined || undefined}
          aria-describedby={describe("spot")}
          onChange={(event) => set("spot")(event.currentTarget.value)}
        />
        {suggestions.length > 0 && (
          <datalist id={`${id}-spots`}>
            {suggestions.map((spot) => (
              <option key={spot} value={spot} />
            ))}
          </datalist>
        )}
        {error("spot")}
      </div>

      <div className="sc-field">
        <label htmlFor={`${id}-note`} className="sc-label">
          {T.noteLabel}
        </label>
        <textarea
          id={`${id}-note`}
          className="dd-input dd-textarea"
          name="note"
          rows={3}
          maxLength={limits.noteMaxLength}
          value={values.note}
          disabled={disabled}
          aria-invalid={errors.note !== undefined || undefined}
          aria-describedby={describe("note", `${id}-note-left`)}
          onChange={(event) => set("note")(event.currentTarget.value)}
        />
        <p id={`${id}-note-left`} className="sc-help">
          {T.charactersLeft(Math.max(0, noteLeft))}
        </p>
        {error("note")}
      </div>
    </div>
  );
}

/** The folded "Details (optioneel)" part under "Voeg plons toe"; opens by itself on an error. */
export function DipDetails(props: DipDetailsFieldsProps) {
  const hasError = Object.keys(props.errors).length > 0;
  return (
    <details className="dd-details" open={hasError || undefined}>
      <summary className="dd-summary">{T.detailsSummary}</summary>
      <DipDetailsFields {...props} />
    </details>
  );
}
