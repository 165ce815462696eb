import { memo, useCallback, useId, useState } from "react";
import { postJson } from "../lib/api";
import { ConfirmDialog } from "../ui/dialog";
import { DeleteDialog } from "./delete-dialog";
import { MoreButton, NoRows, SearchField, SortHeaders, useServerList, type Column, type Sort } from "./server-list";
import { useSingleFlight } from "../lib/single-flight";
import { useSay } from "../ui/feedback";
import { ActionButton, EmailText, ErrorMessage, useFailure, withId } from "./shared";
import { useUpdateStats } from "./stats";
import { T } from "./texts";
import type { AdminEndpoints, AdminUser, UserDeleted, UserOrganiserChanged, UsersResponse } from "./types";

export interface UsersProps {
  endpoints: Pick<AdminEndpoints, "users" | "userDelete" | "userOrganiser">;
  /** The signed-in admin: their own row cannot be deleted or made organiser. */
  currentUserId: number;
}

/** The server's sort keys (see USERS in apps/adminpanel/selectors.py). */
export type SortKey = "email" | "name" | "createdAt" | "dipCount";

const COLUMNS: readonly Column<SortKey>[] = [
  { key: "email", label: T.colEmail, first: "ascending" },
  { key: "name", label: T.colName, first: "ascending" },
  { key: "createdAt", label: T.colJoined, first: "descending" },
  { key: null, label: T.colNewsletter },
  { key: "dipCount", label: T.colDips, numeric: true, first: "descending" },
];

/** The server's default order: newest first. */
const DEFAULT_SORT: Sort<SortKey> = { key: "createdAt", direction: "descending" };
const usersOf = (page: UsersResponse) => page.users;
const idOf = (user: AdminUser) => user.id;

/** 'Gebruikersbeheer': a button loads the first page; the server searches, sorts and pages; delete. */
export function Users({ endpoints, currentUserId }: UsersProps) {
  const list = useServerList({
    endpoint: endpoints.users,
    rowsOf: usersOf,
    idOf,
    defaultSort: DEFAULT_SORT,
    failedText: T.usersLoadFailed,
  });
  const [pendingDelete, setPendingDelete] = useState<AdminUser | null>(null);
  const [deleting, runDelete] = useSingleFlight();
  const notify = useSay();
  const failure = useFailure();
  const updateStats = useUpdateStats();
  const searchId = useId();
  const countId = useId();
  const { rows, loaded, setRows } = list;

  const askDelete = useCallback((user: AdminUser) => setPendingDelete(user), []);
  const [switching, runSwitch] = useSingleFlight();
  // "Maak organisator" asks first: the dialog says what the role needs. Taking it back does not ask.
  const [pendingOrganiser, setPendingOrganiser] = useState<AdminUser | null>(null);

  const switchOrganiser = useCallback(
    async (user: AdminUser) => {
      const result = await runSwitch(() =>
        postJson<UserOrganiserChanged>(withId(endpoints.userOrganiser, user.id), { organiser: !user.isOrganiser }),
      );
      if (result === undefined) return;
      setPendingOrganiser(null);
      if (!result.ok) {
        failure(result, T.organiserFailed, true);
        return;
      }
      const data = result.data;
      if (data === undefined) return;
      setRows((current) => current.map((item) => (item.id === data.user.id ? data.user : item)));
      notify(data.message, "success");
    },
    [endpoints.userOrganiser, failure, notify, runSwitch, setRows],
  );
  const askOrganiser = useCallback(
    (user: AdminUser) => {
      if (user.isOrganiser) return switchOrganiser(user);
      setPendingOrganiser(user);
      return Promise.resolve();
    },
    [switchOrganiser],
  );

  const confirmDelete = async () => {
    const user = pendingDelete;
    if (user === null) return;
    const result = await runDelete(() => postJson<UserDeleted>(withId(endpoints.userDelete, user.id), {}));
    if (result === undefined) return;
    setPendingDelete(null);
    if (!result.ok) {
      failure(result, T.userDeleteFailed, true);
      return;
    }
    setRows((current) => current.filter((item) => item.id !== user.id));
    if (result.data?.stats !== undefined) updateStats(result.data.stats);
    notify(result.data?.message || T.userDeleted, "success");
  };

  return (
    <div className="adm adm-stack">
      <div className="adm-toolbar">
        {!loaded && <p className="muted adm-intro">{T.usersIntro}</p>}
        {loaded && (
          <SearchField
            id={searchId}
            label={T.usersSearch}
            placeholder={T.searchNameOrEmail}
            value={list.query}
            onChange={list.setQuery}
            describedBy={countId}
          />
        )}
        <ActionButton
          variant={loaded ? "secondary" : "primary"}
          onClick={() => void list.load()}
          busy={list.busy}
          busyLabel={T.loading}
        >
          {loaded ? T.usersReload : T.usersLoad}
        </ActionButton>
      </div>

      {list.error !== null && <ErrorMessage text={list.error} />}

      {loaded && (
        <>
          <p id={countId} className="muted adm-count" aria-live="polite">
            {T.usersCount(rows.length, list.next !== null)}
          </p>
          {rows.length === 0 ? (
            <NoRows
              shownQuery={list.shownQuery}
              empty={<p className="empty-state-title">{T.usersEmpty}</p>}
              noMatch={T.usersNoMatch}
            />
          ) : (
            <div className="table-wrap adm-table-wrap adm-table-wrap--stack">
              <table className="table adm-table adm-table--stack adm-sortable adm-users-table">
                <thead>
                  <SortHeaders columns={COLUMNS} sort={list.sort} onSort={list.toggleSort} />
                </thead>
                <tbody>
                  {rows.map((user) => (
                    <UserRow
                      key={user.id}
                      user={user}
                      isSelf={user.id === currentUserId}
                      onDelete={askDelete}
                      onOrganiser={askOrganiser}
                      switching={switching}
                    />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {list.next !== null && <MoreButton onClick={() => void list.loadMore()} busy={list.moreBusy} />}
        </>
      )}

      <DeleteDialog
        title={T.userDeleteTitle}
        body={pendingDelete === null ? null : T.userDeleteBody(displayName(pendingDelete))}
        busy={deleting}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setPendingDelete(null)}
      />
      <ConfirmDialog
        open={pendingOrganiser !== null}
        title={T.organiserTitle}
        confirmLabel={T.organiserOn}
        cancelLabel={T.cancel}
        busy={switching}
        busyLabel={T.organiserBusy}
        onConfirm={() => {
          if (pendingOrganiser !== null) void switchOrganiser(pendingOrganiser);
        }}
        onCancel={() => setPendingOrganiser(null)}
      >
        {pendingOrganiser === null ? null : T.organiserBody(displayName(pendingOrganiser))}
      </ConfirmDialog>
    </div>
  );
}

function displayName(user: AdminUser): string {
  return user.name.trim() === "" ? user.email : `${user.name} (${user.email})`;
}

interface UserRowProps {
  user: AdminUser;
  isSelf: boolean;
  onDelete: (user: AdminUser) => void;
  onOrganiser: (user: AdminUser) => Promise<void>;
  switching: boolean;
}

/** Memoised: typing in the search box re-renders only the rows that appear. */
const UserRow = memo(function UserRow({ user, isSelf, onDelete, onOrganiser, switching }: UserRowProps) {
  const ownNoteId = useId();
  return (
    <tr>
      <th scope="row" className="adm-wrap adm-email">
        <EmailText email={user.email} />
      </th>
      <td data-label={T.colName}>
        <span className="adm-name">
          {user.name.trim() === "" ? <span className="muted">{T.none}</span> : user.name}
          {user.isAdmin && <span className="badge-pill info">{T.adminPill}</span>}
          {user.isOrganiser && <span className="badge-pill info">{T.organiserPill}</span>}
          {isSelf && <span className="badge-pill gold">{T.youPill}</span>}
        </span>
      </td>
      <td data-label={T.colJoined} className="adm-nowrap">
        {user.createdAtDisplay}
      </td>
      <td data-label={T.colNewsletter}>{user.newsletter ? T.yes : T.no}</td>
      <td data-label={T.colDips} className="num">
        {user.dipCount}
      </td>
      <td className="adm-actions-cell">
        <div className="table-actions">
          {/* Nobody makes themselves organiser (the server refuses it too). */}
          {!(isSelf && !user.isOrganiser) && (
            <button
              type="button"
              className="btn btn-secondary btn-sm"
              disabled={switching}
              aria-pressed={user.isOrganiser}
              onClick={() => void onOrganiser(user)}
            >
              {user.isOrganiser ? T.organiserOff : T.organiserOn}
              {" "}
              <span className="visually-hidden">{T.organiserFor(user.email)}</span>
            </button>
          )}
          <button
            type="button"
            className="btn btn-outline-danger btn-sm"
            disabled={isSelf}
            title={isSelf ? T.ownAccount : undefined}
            aria-describedby={isSelf ? ownNoteId : undefined}
            onClick={() => onDelete(user)}
          >
            {T.delete}
            {" "}
            <span className="visually-hidden">{T.deleteUserFor(user.email)}</span>
          </button>
          {/* The reason stands next to the button: a tooltip never shows on a phone. */}
          {isSelf && (
            <span id={ownNoteId} className="adm-own-note">
              {T.ownAccount}
            </span>
          )}
        </div>
      </td>
    </tr>
  );
});
