import { type ChangeEvent, type ReactNode, useId } from "react";
import type { DipDetailsValues } from "./dip-details";
import { DT } from "./details-texts";
import type { ConditionErrors, ConditionField, ConditionLimits } from "./types";
import "./dip-details.css";

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
  // What each typed field's control shares: its id and name, its value, its error state, where it writes.
  const control = (key: keyof DipDetailsValues, field: ConditionField, help?: string) => ({
    id: `${id}-${key}`,
    name: field,
    value: values[key],
    disabled,
    "aria-invalid": errors[field] !== undefined || undefined,
    "aria-describedby": describe(field, help),
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => set(key)(event.currentTarget.value),
  });
  const noteLeft = limits.noteMaxLength - values.note.length;

  return (
    <div className="dd-fields">
      <Field htmlFor={`${id}-temperature`} label={DT.temperatureLabel} error={error("water_temperature")}>
        <input
          {...control("temperature", "water_temperature", `${id}-temperature-help`)}
          className="dd-input dd-input--short"
          type="text"
          inputMode="decimal"
          autoComplete="off"
          placeholder="4,5"
        />
        <p id={`${id}-temperature-help`} className="sc-help">
          {DT.temperatureHelp}
        </p>
      </Field>

      <fieldset
        className="sc-field dd-duration"
        aria-describedby={describe("duration_seconds", `${id}-safety`)}
        aria-invalid={errors.duration_seconds !== undefined || undefined}
      >
        <legend className="sc-label">{DT.durationLabel}</legend>
        <div className="dd-duration__inputs">
          <DurationPart
            name="duration_minutes"
            placeholder="2"
            value={values.minutes}
            unit={DT.durationMinutes}
            disabled={disabled}
            onChange={set("minutes")}
          />
          <DurationPart
            name="duration_seconds_part"
            placeholder="30"
            value={values.seconds}
            unit={DT.durationSeconds}
            disabled={disabled}
            onChange={set("seconds")}
          />
        </div>
        {error("duration_seconds")}
        <p id={`${id}-safety`} className="dd-safety">
          <span aria-hidden="true">⚠️ </span>
          {safetyNote}
        </p>
      </fieldset>

      <Field htmlFor={`${id}-spot`} label={DT.spotLabel} error={error("spot")}>
        <input
          {...control("spot", "spot")}
          className="dd-input"
          type="text"
          autoComplete="off"
          list={suggestions.length > 0 ? `${id}-spots` : undefined}
          maxLength={limits.spotMaxLength}
        />
        {suggestions.length > 0 && (
          <datalist id={`${id}-spots`}>
            {suggestions.map((spot) => (
              <option key={spot} value={spot} />
            ))}
          </datalist>
        )}
      </Field>

      <Field htmlFor={`${id}-note`} label={DT.noteLabel} error={error("note")}>
        <textarea
          {...control("note", "note", `${id}-note-left`)}
          className="dd-input dd-textarea"
          rows={3}
          maxLength={limits.noteMaxLength}
        />
        <p id={`${id}-note-left`} className="sc-help">
          {DT.charactersLeft(Math.max(0, noteLeft))}
        </p>
      </Field>
    </div>
  );
}

/** A labelled field of the details: its control and what stands under it (help or suggestions), then its error. */
function Field({
  htmlFor,
  label,
  error,
  children,
}: {
  htmlFor: string;
  label: string;
  error: ReactNode;
  children: ReactNode;
}) {
  return (
    <div className="sc-field">
      <label htmlFor={htmlFor} className="sc-label">
        {label}
      </label>
      {children}
      {error}
    </div>
  );
}

/** One of the two small number fields of "Tijd in het water": minutes or seconds. */
function DurationPart({
  name,
  placeholder,
  value,
  unit,
  disabled,
  onChange,
}: {
  name: string;
  placeholder: string;
  value: string;
  unit: string;
  disabled: boolean;
  onChange: (value: string) => void;
}) {
  return (
    <label className="dd-duration__part">
      <input
        className="dd-input dd-input--tiny"
        name={name}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        placeholder={placeholder}
        maxLength={2}
        value={value}
        disabled={disabled}
        onChange={(event) => onChange(event.currentTarget.value)}
      />
      <span>{unit}</span>
    </label>
  );
}
