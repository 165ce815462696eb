import { useCallback, useEffect, useId, useRef, useState, type FormEvent, type ReactNode } from "react";
import { postJson } from "../lib/api";
import { DeleteDialog } from "./delete-dialog";
import { MoreButton, NoRows, SearchField, SortHeaders, useServerList, type Column, type Sort } from "./server-list";
import { useSingleFlight } from "../lib/single-flight";
import { useSay } from "../ui/feedback";
import { ActionButton, ErrorMessage, useFailure, withId } from "./shared";
import { T } from "./texts";
import type {
  AdminEndpoints,
  Invitation,
  InvitationBulkCreated,
  InvitationCreated,
  InvitationPage,
  InvitationStatus,
  MailStatus,
  MessageResponse,
} from "./types";

export type InvitationEndpoints = Pick<
  AdminEndpoints,
  "invitations" | "invitationCreate" | "invitationBulk" | "invitationDelete" | "invitationResend"
>;

export interface InvitationsProps {
  endpoints: InvitationEndpoints;
}

const STATUS_PILL: Record<InvitationStatus, string> = {
  active: "success",
  used: "info",
  expired: "neutral",
};

const MAIL_PILL: Record<MailStatus, string> = {
  queued: "neutral",
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

/** New rows first, without duplicates. */
function prepend(rows: readonly Invitation[], added: readonly Invitation[]): Invitation[] {
  const ids = new Set(added.map((row) => row.id));
  return [...added, ...rows.filter((row) => !ids.has(row.id))];
}

/** The server's sort keys (see INVITATIONS in apps/adminpanel/selectors.py). */
export type InvitationSortKey = "code" | "email" | "createdAt" | "expiresAt";

const COLUMNS: readonly Column<InvitationSortKey>[] = [
  { key: "code", label: T.colCode, first: "ascending" },
  { key: "email", label: T.colEmail, first: "ascending" },
  { key: null, label: T.colStatus },
  { key: null, label: T.colMail },
  { key: "createdAt", label: T.colCreated, first: "descending" },
  { key: "expiresAt", label: T.colExpires, first: "ascending" },
  { key: null, label: T.colUsedBy },
];

/** The server's default order: newest first. */
const DEFAULT_SORT: Sort<InvitationSortKey> = { key: "createdAt", direction: "descending" };
const invitationsOf = (page: InvitationPage) => page.invitations;
const idOf = (row: Invitation) => row.id;

/** 'Uitnodigingsbeheer': bulk and single invitations, and the invitation table the server searches and sorts. */
export function Invitations({ endpoints }: InvitationsProps) {
  const list = useServerList({
    endpoint: endpoints.invitations,
    rowsOf: invitationsOf,
    idOf,
    defaultSort: DEFAULT_SORT,
    failedText: T.invitationsLoadFailed,
    loadOnMount: true,
  });
  const [manualCopy, setManualCopy] = useState<Invitation | null>(null);
  const [pendingDelete, setPendingDelete] = useState<Invitation | null>(null);
  const [deleting, runDelete] = useSingleFlight();
  const [, runResend] = useSingleFlight();
  const notify = useSay();
  const failure = useFailure();
  const searchId = useId();
  const countId = useId();
  const { rows, setRows, loaded } = list;

  const added = useCallback(
    (created: readonly Invitation[]) => setRows((current) => prepend(current, created)),
    [setRows],
  );

  const copy = async (row: Invitation) => {
    const clipboard: Clipboard | undefined = navigator.clipboard;
    if (clipboard !== undefined && typeof clipboard.writeText === "function") {
      try {
        await clipboard.writeText(row.link);
        setManualCopy(null);
        notify(T.linkCopied, "success");
        return;
      } catch {
        // Not allowed (insecure context, permissions): fall back to selecting the text.
      }
    }
    setManualCopy(row);
  };

  const confirmDelete = async () => {
    const row = pendingDelete;
    if (row === null) return;
    const result = await runDelete(() =>
      postJson<MessageResponse>(withId(endpoints.invitationDelete, row.id), {}),
    );
    if (result === undefined) return;
    setPendingDelete(null);
    if (!result.ok) {
      failure(result, T.invitationDeleteFailed, true);
      return;
    }
    setRows((current) => current.filter((item) => item.id !== row.id));
    if (manualCopy?.id === row.id) setManualCopy(null);
    notify(result.data?.message || T.invitationDeleted, "success");
  };

  const resend = async (row: Invitation) => {
    const result = await runResend(() =>
      postJson<InvitationCreated>(withId(endpoints.invitationResend, row.id), {}),
    );
    if (result === undefined) return;
    if (!result.ok) {
      failure(result, T.resendFailed, true);
      return;
    }
    const updated = result.data?.invitation;
    if (updated !== undefined) {
      setRows((current) => current.map((item) => (item.id === updated.id ? updated : item)));
    }
    notify(result.data?.message || T.resent, "success");
  };

  return (
    <div className="adm adm-stack">
      <div className="adm-forms">
        <BulkForm endpoint={endpoints.invitationBulk} onCreated={added} />
        <SingleForm endpoint={endpoints.invitationCreate} onCreated={added} />
      </div>

      <div className="adm-stack adm-stack-sm">
        <div className="adm-heading-row">
          <h3 className="adm-subtitle">{T.invitationsTitle}</h3>
          {loaded && rows.length > 0 && (
            <span id={countId} className="muted adm-count" aria-live="polite">
              {T.invitationsCount(rows.length, list.next !== null)}
            </span>
          )}
        </div>
        {loaded && (
          <div className="adm-toolbar">
            <SearchField
              id={searchId}
              label={T.invitationsSearch}
              placeholder={T.invitationsSearchPlaceholder}
              value={list.query}
              onChange={list.setQuery}
              describedBy={countId}
            />
          </div>
        )}

        {manualCopy !== null && <ManualCopy row={manualCopy} onClose={() => setManualCopy(null)} />}

        {!loaded && list.error === null && (
          <p className="muted" role="status">
            {T.invitationsLoading}
          </p>
        )}
        {loaded && rows.length === 0 && (
          <NoRows
            shownQuery={list.shownQuery}
            empty={
              <>
                <p className="empty-state-title">{T.invitationsEmptyTitle}</p>
                <p>{T.invitationsEmptyText}</p>
              </>
            }
            noMatch={T.invitationsNoMatch}
          />
        )}
        {rows.length > 0 && (
          <InvitationTable
            rows={rows}
            header={<SortHeaders columns={COLUMNS} sort={list.sort} onSort={list.toggleSort} />}
            onCopy={(row) => void copy(row)}
            onDelete={setPendingDelete}
            onResend={(row) => void resend(row)}
          />
        )}
        {list.error !== null && (
          <ErrorMessage
            text={list.error}
            {...(loaded ? {} : { onRetry: () => void list.load(), busy: list.busy })}
          />
        )}
        {loaded && list.next !== null && <MoreButton onClick={() => void list.loadMore()} busy={list.moreBusy} />}
      </div>

      <DeleteDialog
        title={T.invitationDeleteTitle}
        body={pendingDelete === null ? null : T.invitationDeleteBody(pendingDelete.code)}
        busy={deleting}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setPendingDelete(null)}
      />
    </div>
  );
}

interface InvitationTableProps {
  rows: readonly Invitation[];
  /** The header row: the sort buttons. */
  header: ReactNode;
  onCopy: (row: Invitation) => void;
  onDelete: (row: Invitation) => void;
  onResend: (row: Invitation) => void;
}

function InvitationTable({ rows, header, onCopy, onDelete, onResend }: InvitationTableProps) {
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
                {row.email ?? <span className="muted" title={T.genericCode}>{T.none}</span>}
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
function ManualCopy({ row, onClose }: { row: Invitation; onClose: () => void }) {
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

type FormResult =
  | { kind: "success"; message: string; detail?: string; skipped?: readonly string[] }
  | { kind: "error"; message: string };

function ResultMessage({ result }: { result: FormResult | null }) {
  // The wrapper stays rendered so screen readers announce what appears in it.
  return (
    <div aria-live="polite" className="adm-result">
      {result?.kind === "success" && (
        <div className="adm-success">
          <p>
            {result.message}
            {result.detail !== undefined && <span className="adm-code">{result.detail}</span>}
          </p>
          {result.skipped !== undefined && result.skipped.length > 0 && (
            <>
              <p>{T.bulkSkipped(result.skipped.length)}</p>
              <ul className="adm-skipped">
                {result.skipped.map((email) => (
                  <li key={email}>{email}</li>
                ))}
              </ul>
            </>
          )}
        </div>
      )}
      {result?.kind === "error" && (
        <p className="form-errors" role="alert">
          {result.message}
        </p>
      )}
    </div>
  );
}

interface CreateFormProps {
  endpoint: string;
  onCreated: (rows: readonly Invitation[]) => void;
}

/**
 * One create request at a time for a form: `send` posts `body`, shows the Dutch failure, or hands the
 * answer to `created`, whose result is shown under the form.
 */
function useCreateRequest<R>(endpoint: string, failedText: string) {
  const [busy, run] = useSingleFlight();
  const [result, setResult] = useState<FormResult | null>(null);
  const failure = useFailure();
  const send = async (body: object, created: (data: R) => FormResult) => {
    const response = await run(() => {
      setResult(null);
      return postJson<R>(endpoint, body);
    });
    if (response === undefined) return;
    setResult(response.ok ? created(response.data) : { kind: "error", message: failure(response, failedText) });
  };
  return { busy, result, send };
}

function BulkForm({ endpoint, onCreated }: CreateFormProps) {
  const [text, setText] = useState("");
  const { busy, result, send } = useCreateRequest<InvitationBulkCreated>(endpoint, T.bulkFailed);
  const id = useId();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    await send({ text }, (data) => {
      onCreated(data.invitations);
      setText("");
      return { kind: "success", message: data.message, skipped: data.skipped };
    });
  };

  return (
    <form className="adm-form" onSubmit={(event) => void submit(event)} noValidate>
      <h3 className="adm-subtitle">{T.bulkTitle}</h3>
      <div className="field">
        <label htmlFor={`${id}-text`}>{T.bulkLabel}</label>
        <textarea
          id={`${id}-text`}
          value={text}
          onChange={(event) => setText(event.target.value)}
          rows={5}
          aria-describedby={`${id}-help`}
          spellCheck={false}
        />
        <p id={`${id}-help`} className="field-help">
          {T.bulkHelp}
        </p>
      </div>
      <ActionButton type="submit" busy={busy} busyLabel={T.creating}>
        {T.bulkSubmit}
      </ActionButton>
      <ResultMessage result={result} />
    </form>
  );
}

function SingleForm({ endpoint, onCreated }: CreateFormProps) {
  const [email, setEmail] = useState("");
  const { busy, result, send } = useCreateRequest<InvitationCreated>(endpoint, T.singleFailed);
  const id = useId();

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    await send({ email: email.trim() }, ({ message, invitation }) => {
      onCreated([invitation]);
      setEmail("");
      return { kind: "success", message, detail: T.singleCreatedCode(invitation.code) };
    });
  };

  return (
    <form className="adm-form" onSubmit={(event) => void submit(event)} noValidate>
      <h3 className="adm-subtitle">{T.singleTitle}</h3>
      <div className="field">
        <label htmlFor={`${id}-email`}>{T.singleLabel}</label>
        <input
          id={`${id}-email`}
          type="email"
          autoComplete="off"
          inputMode="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          aria-describedby={`${id}-help`}
          aria-invalid={result?.kind === "error" || undefined}
        />
        <p id={`${id}-help`} className="field-help">
          {T.singleHelp}
        </p>
      </div>
      <ActionButton type="submit" busy={busy} busyLabel={T.creating}>
        {T.singleSubmit}
      </ActionButton>
      <ResultMessage result={result} />
    </form>
  );
}
