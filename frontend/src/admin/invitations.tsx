import { useCallback, useId, useState } from "react";
import { postJson } from "../lib/api";
import { useSingleFlight } from "../lib/single-flight";
import { useSay } from "../ui/feedback";
import { DeleteDialog } from "./delete-dialog";
import { BulkForm, SingleForm } from "./invitation-forms";
import { InvitationTable, ManualCopy } from "./invitation-table";
import { MoreButton, NoRows, SearchField, SortHeaders, useServerList, type Column, type Sort } from "./server-list";
import { ErrorMessage, useFailure, withId } from "./shared";
import { T } from "./texts";
import type { AdminEndpoints, Invitation, InvitationCreated, InvitationPage, MessageResponse } from "./types";


export type InvitationEndpoints = Pick<
  AdminEndpoints,
  "invitations" | "invitationCreate" | "invitationBulk" | "invitationDelete" | "invitationResend"
>;

export interface InvitationsProps {
  endpoints: InvitationEndpoints;
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
