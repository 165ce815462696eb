import { useId } from "react";
import { T } from "./texts";

/** How many days back the dip was: today, yesterday or the day before (the server takes tap times up to 72 hours
 * back, and every rule of a dip holds on that day, one swim one stamp included). */
export type DaysAgo = 0 | 1 | 2;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The moment sent as `tapped_at` for a dip `daysAgo` days back: this time of day, on that day. */
export function tappedAtFor(daysAgo: DaysAgo, now: Date = new Date()): Date {
  return new Date(now.getTime() - daysAgo * DAY_MS);
}

const DAY_FORMAT = new Intl.DateTimeFormat("nl-NL", { weekday: "long", day: "numeric", month: "long" });

/** "Vergeten te registreren?": folded; opened, the member picks yesterday or the day before for this dip. */
export function ForgottenDay({
  value,
  disabled,
  onChange,
}: {
  value: DaysAgo;
  disabled: boolean;
  onChange: (daysAgo: DaysAgo) => void;
}) {
  const name = useId();
  const helpId = useId();
  const options: { days: DaysAgo; label: string }[] = [
    { days: 0, label: T.dayToday },
    { days: 1, label: T.dayYesterday(DAY_FORMAT.format(tappedAtFor(1))) },
    { days: 2, label: T.dayBefore(DAY_FORMAT.format(tappedAtFor(2))) },
  ];
  return (
    <details className="dd-details">
      <summary className="dd-summary">{T.forgottenSummary}</summary>
      <fieldset className="sc-forgotten__days" aria-describedby={helpId}>
        <legend>{T.forgottenLegend}</legend>
        {options.map((option) => (
          <div className="field-checkbox sc-forgotten__day" key={option.days}>
            <input
              id={`${name}-${option.days}`}
              type="radio"
              name={name}
              checked={value === option.days}
              disabled={disabled}
              onChange={() => onChange(option.days)}
            />
            <label htmlFor={`${name}-${option.days}`}>{option.label}</label>
          </div>
        ))}
        <p id={helpId} className="field-help">
          {T.forgottenHelp}
        </p>
      </fieldset>
    </details>
  );
}
