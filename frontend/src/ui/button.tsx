import type { ButtonHTMLAttributes, ReactNode } from "react";

/** The site's one button (static/css/app.css, section Buttons): `.btn` plus a `.btn-<variant>`. */
export type ButtonVariant = "primary" | "secondary" | "danger" | "outline" | "outline-danger" | "ghost";

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: ButtonVariant;
  size?: "sm" | "md" | "lg";
  /** While true the button is disabled, marked aria-busy and shows `busyLabel`. */
  busy?: boolean;
  /** Text while busy, e.g. 'Uploaden...'. */
  busyLabel?: ReactNode;
}

/** A `<button>` that defaults to `type="button"` (never submits a form by accident). */
export function Button({
  variant = "primary",
  size = "md",
  busy = false,
  busyLabel,
  type = "button",
  className,
  disabled,
  children,
  ...rest
}: ButtonProps) {
  const classes = ["btn", `btn-${variant}`, size === "md" ? null : `btn-${size}`, className].filter(Boolean).join(" ");
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
