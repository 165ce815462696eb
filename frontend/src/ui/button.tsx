import type { ButtonHTMLAttributes, ReactNode } from "react";
import "./button.css";

export type ButtonVariant = "primary" | "secondary" | "danger" | "ghost";

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  /** While true the button is disabled, marked aria-busy and shows `busyLabel`. */
  busy?: boolean;
  /** Text while busy, e.g. 'Uploaden...'. */
  busyLabel?: ReactNode;
}

/** A `<button>` that defaults to `type="button"` (never submits a form by accident). */
export function Button({
  variant = "primary",
  busy = false,
  busyLabel,
  type = "button",
  className,
  disabled,
  children,
  ...rest
}: ButtonProps) {
  const classes = ["kw-button", `kw-button--${variant}`, className].filter(Boolean).join(" ");
  return (
    <button
      {...rest}
      type={type}
      className={classes}
      disabled={disabled === true || busy}
      aria-busy={busy || undefined}
    >
      {busy && busyLabel !== undefined ? busyLabel : children}
    </button>
  );
}
