import { memo, useCallback, useDeferredValue, useId, useMemo, useRef, useState } from "react";
import { getJson, postJson } from "../lib/api";
import { DeleteDialog } from "./delete-dialog";
import { ActionButton, ErrorMessage, useFailure, useNotify, useSingleFlight, withId } from "./shared";
import { useUpdateStats } from "./stats";
import { T } from "./texts";
import type { AdminEndpoints, AdminUser, UserDeleted, UsersResponse } from "./types";

export interface UsersProps {
  endpoints: Pick<AdminEndpoints, "users" | "userDelete">;
  /** The signed-in admin: their own row cannot be deleted. */
  currentUserId: number;
}

export type SortKey = "email" | "name" | "createdAt" | "newsletter" | "dipCount";
export type SortDirection = "ascending" | "descending";
interface Sort {
  key: SortKey;
  direction: SortDirection;
}

const COLUMNS: readonly { key: SortKey; label: string; numeric?: boolean; first: SortDirection }[] = [
  { key: "email", label: T.colEmail, first: "ascending" },
  { key: "name", label: T.colName, first: "ascending" },
  { key: "createdAt", label: T.colJoined, first: "descending" },
  { key: "newsletter", label: T.colNewsletter, first: "descending" },
  { key: "dipCount", label: T.colDips, numeric: true, first: "descending" },
];

/** The server's order: newest first. */
const DEFAULT_SORT: Sort = { key: "createdAt", direction: "descending" };

const collator = new Intl.Collator("nl", { sensitivity: "base", numeric: true });

/** Per user, computed once per load: the lowercase search text and the join time. */
interface Indexed {
  user: AdminUser;
  search: string;
  joined: number;
}

function compare(a: Indexed, b: Indexed, key: SortKey): number {
  switch (key) {
    case "email":
      return collator.compare(a.user.email, b.user.email);
    case "name":
      return collator.compare(a.user.name, b.user.name);
    case "createdAt":
      return a.joined - b.joined;
    case "newsletter":
      return Number(a.user.newsletter) - Number(b.user.newsletter);
    case "dipCount":
      return a.user.dipCount - b.user.dipCount;
  }
}

function sortUsers(index: readonly Indexed[], sort: Sort): Indexed[] {
  const sign = sort.direction === "ascending" ? 1 : -1;
  // Ties: newest first, then the higher id, so the order never jumps.
  return [...index].sort(
    (a, b) => sign * compare(a, b, sort.key) || b.joined - a.joined || b.user.id - a.user.id,
  );
}

/** 'Gebruikersbeheer': a button loads every user; sort, search and delete. */
export function Users({ endpoints, currentUserId }: UsersProps) {
  const [users, setUsers] = useState<readonly AdminUser[] | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  const [sort, setSort] = useState<Sort>(DEFAULT_SORT);
  const [pendingDelete, setPendingDelete] = useState<AdminUser | null>(null);
  const [deleting, runDelete] = useSingleFlight();
  const loading = useRef(false);
  const notify = useNotify();
  const failure = useFailure();
  const updateStats = useUpdateStats();
  const searchId = useId();
  const countId = useId();

  const load = async () => {
    if (loading.current) return;
    loading.current = true;
    setBusy(true);
    setError(null);
    const result = await getJson<UsersResponse>(endpoints.users);
    loading.current = false;
    setBusy(false);
    if (!result.ok) {
      setError(failure(result, T.usersLoadFailed));
      return;
    }
    setUsers(result.data.users);
  };

  const index = useMemo<Indexed[]>(
    () =>
      (users ?? []).map((user) => ({
        user,
        search: `${user.name}\n${user.email}`.toLowerCase(),
        joined: Date.parse(user.createdAt) || 0,
      })),
    [users],
  );
  // Sorting runs when the list or the sort changes; typing only filters the sorted list.
  const sorted = useMemo(() => sortUsers(index, sort), [index, sort]);
  const deferredQuery = useDeferredValue(query);
  const needle = deferredQuery.trim().toLowerCase();
  const visible = useMemo(
    () => (needle === "" ? sorted : sorted.filter((item) => item.search.includes(needle))),
    [sorted, needle],
  );

  const toggleSort = (key: SortKey, first: SortDirection) => {
    setSort((current) =>
      current.key === key
        ? { key, direction: current.direction === "ascending" ? "descending" : "ascending" }
        : { key, direction: first },
    );
  };

  const askDelete = useCallback((user: AdminUser) => setPendingDelete(user), []);

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
    setUsers((current) => (current === null ? current : current.filter((item) => item.id !== user.id)));
    if (result.data?.stats !== undefined) updateStats(result.data.stats);
    notify(result.data?.message || T.userDeleted, "success");
  };

  const loaded = users !== null;

  return (
    <div className="adm adm-stack">
      <div className="adm-toolbar">
        {!loaded && <p className="muted adm-intro">{T.usersIntro}</p>}
        {loaded && (
          <div className="field adm-search">
            <label htmlFor={searchId}>{T.usersSearch}</label>
            <input
              id={searchId}
              type="search"
              value={query}
              placeholder={T.usersSearchPlaceholder}
              autoComplete="off"
              spellCheck={false}
              aria-describedby={countId}
              onChange={(event) => setQuery(event.target.value)}
            />
          </div>
        )}
        <ActionButton
          variant={loaded ? "secondary" : "primary"}
          onClick={() => void load()}
          busy={busy}
          busyLabel={T.loading}
        >
          {loaded ? T.usersReload : T.usersLoad}
        </ActionButton>
      </div>

      {error !== null && <ErrorMessage text={error} />}

      {loaded && (
        <>
          <p id={countId} className="muted adm-count" aria-live="polite">
            {T.usersCount(visible.length, index.length)}
          </p>
          {index.length === 0 ? (
            <div className="empty-state">
              <p className="empty-state-title">{T.usersEmpty}</p>
            </div>
          ) : visible.length === 0 ? (
            <div className="empty-state">
              <p>{T.usersNoMatch(deferredQuery.trim())}</p>
            </div>
          ) : (
            <div className="table-wrap adm-table-wrap adm-table-wrap--stack">
              <table className="table adm-table adm-table--stack adm-users-table">
                <thead>
                  <tr>
                    {COLUMNS.map((column) => {
                      const active = sort.key === column.key;
                      return (
                        <th
                          key={column.key}
                          scope="col"
                          aria-sort={active ? sort.direction : "none"}
                          className={column.numeric ? "num" : undefined}
                        >
                          <button
                            type="button"
                            className={`adm-sort${active ? " is-active" : ""}`}
                            onClick={() => toggleSort(column.key, column.first)}
                          >
                            {column.label}
                            <span className="adm-sort__icon" aria-hidden="true">
                              {active ? (sort.direction === "ascending" ? "▲" : "▼") : "↕"}
                            </span>
                          </button>
                        </th>
                      );
                    })}
                    <th scope="col">
                      <span className="visually-hidden">{T.colActions}</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {visible.map(({ user }) => (
                    <UserRow key={user.id} user={user} isSelf={user.id === currentUserId} onDelete={askDelete} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </>
      )}

      <DeleteDialog
        title={T.userDeleteTitle}
        body={pendingDelete === null ? null : T.userDeleteBody(displayName(pendingDelete))}
        busy={deleting}
        onConfirm={() => void confirmDelete()}
        onCancel={() => setPendingDelete(null)}
      />
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
}

/** Memoised: typing in the search box re-renders only the rows that appear. */
const UserRow = memo(function UserRow({ user, isSelf, onDelete }: UserRowProps) {
  const ownNoteId = useId();
  return (
    <tr>
      <th scope="row" className="adm-wrap adm-email">
        {user.email}
      </th>
      <td data-label={T.colName}>
        <span className="adm-name">
          {user.name.trim() === "" ? <span className="muted">{T.none}</span> : user.name}
          {user.isAdmin && <span className="badge-pill info">{T.adminPill}</span>}
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
