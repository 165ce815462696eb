import { useEffect, useId, useRef, type ReactNode } from "react";
import { EmailText } from "./shared";
import { T } from "./texts";
import type { Invitation, InvitationStatus, MailStatus } from "./types";

const STATUS_PILL: Record<InvitationStatus, string> = {
  active: "success",
  used: "info",
  expired: "neutral",
};

const MAIL_PILL: Record<MailStatus, string> = {
  queued: "neutral",
  sending: "neutral",
  sent: "success",
  failed: "danger",
  suppressed: "neutral",
};

/** A failed mail can be sent again, as long as the invitation can still be used. */
export function canResend(row: Invitation): boolean {
  return row.status === "active" && row.mailStatus === "failed";
}

/** The WhatsApp share link of an invitation: a Dutch text with the `/auth?invite=CODE` link. */
export function shareUrl(link: string): string {
  return `https://wa.me/?text=${encodeURIComponent(T.shareText(link))}`;
}

export interface InvitationTableProps {
  rows: readonly Invitation[];
  /** The header row: the sort buttons. */
  header: ReactNode;
  onCopy: (row: Invitation) => void;
  onDelete: (row: Invitation) => void;
  onResend: (row: Invitation) => void;
}

/** The invitations the server found, each with its actions (copy, share, resend, delete). */
export function InvitationTable({ rows, header, onCopy, onDelete, onResend }: InvitationTableProps) {
  return (
    <div className="table-wrap adm-table-wrap adm-table-wrap--stack">
      <table className="table adm-table adm-table--stack adm-sortable">
        <thead>{header}</thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id}>
              <th scope="row" className="adm-code">
                {row.code}
              </th>
              <td data-label={T.colEmail} className="adm-wrap adm-email-cell">
                {row.email === null ? (
                  <span className="muted" title={T.genericCode}>{T.none}</span>
                ) : (
                  <EmailText email={row.email} />
                )}
              </td>
              <td data-label={T.colStatus}>
                <span className={`badge-pill ${STATUS_PILL[row.status]}`}>{row.statusLabel}</span>
              </td>
              <td data-label={T.colMail}>
                {row.mailStatus === null ? (
                  <span className="muted">{T.none}</span>
                ) : (
                  <span className="adm-mail-status">
                    <span className={`badge-pill ${MAIL_PILL[row.mailStatus]}`}>{row.mailStatusLabel}</span>
                    {canResend(row) && (
                      <button type="button" className="btn btn-ghost btn-sm" onClick={() => onResend(row)}>
                        {T.resend} <span className="visually-hidden">{T.resendFor(row.code)}</span>
                      </button>
                    )}
                  </span>
                )}
              </td>
              <td data-label={T.colCreated} className="adm-nowrap">
                {row.createdAtDisplay}
              </td>
              <td data-label={T.colExpires} className="adm-nowrap">
                {row.expiresAtDisplay}
              </td>
              <td data-label={T.colUsedBy}>
                {row.usedBy === null ? (
                  <span className="muted">{T.none}</span>
                ) : (
                  <span>
                    {row.usedBy}
                    {row.usedAtDisplay !== null && (
                      <span className="muted adm-used-at"> {T.usedOn(row.usedAtDisplay)}</span>
                    )}
                  </span>
                )}
              </td>
              <td className="adm-actions-cell">
                <div className="table-actions adm-row-actions">
                  {/* A used or expired code lets nobody in: nothing to copy or share. */}
                  {row.status === "active" && (
                    <>
                      <button type="button" className="btn btn-secondary btn-sm" onClick={() => onCopy(row)}>
                        {T.copyLink}
                        {" "}
                        <span className="visually-hidden">{T.copyLinkFor(row.code)}</span>
                      </button>
                      <a
                        className="btn btn-outline btn-sm"
                        href={shareUrl(row.link)}
                        target="_blank"
                        rel="noopener noreferrer"
                      >
                        {T.share}
                        {" "}
                        <span className="visually-hidden">{T.shareFor(row.code)}</span>
                      </a>
                    </>
                  )}
                  <button type="button" className="btn btn-outline-danger btn-sm" onClick={() => onDelete(row)}>
                    {T.delete}
                    {" "}
                    <span className="visually-hidden">{T.deleteFor(row.code)}</span>
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Clipboard unavailable: show the link selected in a read-only field. */
export function ManualCopy({ row, onClose }: { row: Invitation; onClose: () => void }) {
  const inputId = useId();
  const helpId = useId();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, [row]);
  return (
    <div className="callout adm-manual-copy">
      <label htmlFor={inputId}>{T.copyManualLabel(row.code)}</label>
      <div className="adm-inline">
        <input
          ref={input}
          id={inputId}
          type="text"
          readOnly
          value={row.link}
          aria-describedby={helpId}
          onFocus={(event) => event.currentTarget.select()}
        />
        <button type="button" className="btn btn-outline btn-sm" onClick={onClose}>
          {T.close}
        </button>
      </div>
      <p id={helpId} className="field-help">
        {T.copyManualHelp}
      </p>
    </div>
  );
}
