/** The details of a dip as the form holds them, and the checks the server also makes. No components
 * here: the form's fields (dip-details-fields.tsx) load just after the island, this stays in it. */
import type { ConditionErrors, ConditionField, ConditionLimits } from "./types";

/** What the member typed, as typed: the server parses and judges it again. */
export interface DipDetailsValues {
  temperature: string;
  minutes: string;
  seconds: string;
  spot: string;
  note: string;
}

/** A new dip's values: the details, and "Met wie?" (apps/together), the clubmates' ids. */
export interface DipValues extends DipDetailsValues {
  buddies?: readonly number[];
  /** "Vergeten te registreren?": the dip was yesterday (1) or the day before (2); sent as `tapped_at`. */
  daysAgo?: 0 | 1 | 2;
}

export const EMPTY_DETAILS: DipDetailsValues = { temperature: "", minutes: "", seconds: "", spot: "", note: "" };

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

/** The fields that break the server's limits, each with the server's own message (from the props). */
export function validateDetails(values: DipDetailsValues, limits: ConditionLimits): ConditionErrors {
  const wrong: ConditionField[] = [];
  const temperature = parseTemperature(values.temperature);
  if (temperature !== null && !(temperature >= limits.temperatureMin && temperature <= limits.temperatureMax)) {
    wrong.push("water_temperature");
  }
  const duration = parseDuration(values.minutes, values.seconds);
  if (duration !== null && !(duration >= limits.durationMinSeconds && duration <= limits.durationMaxSeconds)) {
    wrong.push("duration_seconds");
  }
  if (values.spot.trim().length > limits.spotMaxLength) wrong.push("spot");
  if (values.note.trim().length > limits.noteMaxLength) wrong.push("note");
  const errors: ConditionErrors = {};
  for (const field of wrong) errors[field] = limits.messages[field];
  return errors;
}

/** The fields `POST /challenge/plons` and the edit endpoint read (empty = not logged). */
export function appendDetails(form: FormData, values: DipValues): void {
  const duration = parseDuration(values.minutes, values.seconds);
  form.append("water_temperature", values.temperature.trim());
  form.append("duration_seconds", duration === null || Number.isNaN(duration) ? "" : String(duration));
  form.append("spot", values.spot.trim());
  form.append("note", values.note.trim());
  for (const id of values.buddies ?? []) form.append("buddies", String(id));
}

