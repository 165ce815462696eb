import { memo, useCallback, useEffect, useId, useRef, useState } from "react";
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

/** The server's sort keys (see USER_SORT_COLUMNS in apps/adminpanel/selectors.py). */
export type SortKey = "email" | "name" | "createdAt" | "dipCount";
export type SortDirection = "ascending" | "descending";
interface Sort {
  key: SortKey;
  direction: SortDirection;
}

const COLUMNS: readonly { key: SortKey | null; label: string; numeric?: boolean; first: SortDirection }[] = [
  { key: "email", label: T.colEmail, first: "ascending" },
  { key: "name", label: T.colName, first: "ascending" },
  { key: "createdAt", label: T.colJoined, first: "descending" },
  { key: null, label: T.colNewsletter, first: "descending" },
  { key: "dipCount", label: T.colDips, numeric: true, first: "descending" },
];

/** The server's default order: newest first. */
const DEFAULT_SORT: Sort = { key: "createdAt", direction: "descending" };

/** Typing waits this long before it asks the server: one request per pause, not per key. */
export const SEARCH_DEBOUNCE_MS = 300;

/** The users endpoint for one page: search, sort and (for the pages after the first) the cursor. */
export function usersUrl(base: string, query: string, sort: Sort, cursor: string | null = null): string {
  const params = new URLSearchParams();
  const needle = query.trim();
  if (needle !== "") params.set("q", needle);
  params.set("sort", sort.key);
  params.set("dir", sort.direction === "ascending" ? "asc" : "desc");
  if (cursor !== null) params.set("cursor", cursor);
  return `${base}?${params.toString()}`;
}

/** 'Gebruikersbeheer': a button loads the first page; the server searches, sorts and pages; delete. */
export function Users({ endpoints, currentUserId }: UsersProps) {
  const [users, setUsers] = useState<readonly AdminUser[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [moreBusy, setMoreBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  /** The search the rows on screen answer (the box may be ahead of it while typing). */
  const [shownQuery, setShownQuery] = useState("");
  const [sort, setSort] = useState<Sort>(DEFAULT_SORT);
  const [pendingDelete, setPendingDelete] = useState<AdminUser | null>(null);
  const [deleting, runDelete] = useSingleFlight();
  /** Every first-page request gets a new number; an answer to an older one is dropped (the latest wins). */
  const generation = useRef(0);
  const inFlight = useRef<AbortController | null>(null);
  /** The search and sort of the latest first-page request. */
  const requested = useRef<{ query: string; sort: Sort }>({ query: "", sort: DEFAULT_SORT });
  const loadingMore = useRef(false);
  const notify = useNotify();
  const failure = useFailure();
  const updateStats = useUpdateStats();
  const searchId = useId();
  const countId = useId();

  const loadFirst = useCallback(
    async (searchFor: string, sortBy: Sort) => {
      inFlight.current?.abort();
      const controller = new AbortController();
      inFlight.current = controller;
      const mine = ++generation.current;
      requested.current = { query: searchFor, sort: sortBy };
      setBusy(true);
      setError(null);
      const result = await getJson<UsersResponse>(usersUrl(endpoints.users, searchFor, sortBy), {
        signal: controller.signal,
      });
      if (mine !== generation.current) return;
      inFlight.current = null;
      setBusy(false);
      if (!result.ok) {
        setError(failure(result, T.usersLoadFailed));
        return;
      }
      setUsers(result.data.users);
      setNext(result.data.next);
      setShownQuery(searchFor.trim());
    },
    [endpoints.users, failure],
  );

  const loaded = users !== null;
  const rows = users ?? [];

  // Search and sort go to the server once the list is open: a new sort at once, typing after a pause.
  useEffect(() => {
    const asked = requested.current;
    if (!loaded || (asked.query === query && asked.sort === sort)) return;
    const timer = window.setTimeout(() => void loadFirst(query, sort), asked.sort === sort ? SEARCH_DEBOUNCE_MS : 0);
    return () => window.clearTimeout(timer);
  }, [query, sort, loaded, loadFirst]);

  useEffect(() => () => inFlight.current?.abort(), []);

  const loadMore = async () => {
    if (loadingMore.current || next === null) return;
    loadingMore.current = true;
    const mine = generation.current;
    setMoreBusy(true);
    setError(null);
    const result = await getJson<UsersResponse>(usersUrl(endpoints.users, shownQuery, sort, next));
    loadingMore.current = false;
    setMoreBusy(false);
    if (mine !== generation.current) return; // the search or sort changed meanwhile: this page is stale
    if (!result.ok) {
      setError(failure(result, T.usersLoadFailed));
      return;
    }
    setUsers((current) => {
      const ids = new Set((current ?? []).map((row) => row.id));
      return [...(current ?? []), ...result.data.users.filter((row) => !ids.has(row.id))];
    });
    setNext(result.data.next);
  };

  const toggleSort = (key: SortKey, first: SortDirection) => {
    const nextSort: Sort =
      sort.key === key
        ? { key, direction: sort.direction === "ascending" ? "descending" : "ascending" }
        : { key, direction: first };
    setSort(nextSort);
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
          onClick={() => void loadFirst(query, sort)}
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
            {T.usersCount(rows.length, next !== null)}
          </p>
          {rows.length === 0 ? (
            <div className="empty-state">
              {shownQuery === "" ? (
                <p className="empty-state-title">{T.usersEmpty}</p>
              ) : (
                <p>{T.usersNoMatch(shownQuery)}</p>
              )}
            </div>
          ) : (
            <div className="table-wrap adm-table-wrap adm-table-wrap--stack">
              <table className="table adm-table adm-table--stack adm-users-table">
                <thead>
                  <tr>
                    {COLUMNS.map((column) => {
                      const key = column.key;
                      if (key === null) {
                        return (
                          <th key={column.label} scope="col" className="adm-unsorted">
                            {column.label}
                          </th>
                        );
                      }
                      const active = sort.key === key;
                      return (
                        <th
                          key={key}
                          scope="col"
                          aria-sort={active ? sort.direction : "none"}
                          className={column.numeric ? "num" : undefined}
                        >
                          <button
                            type="button"
                            className={`adm-sort${active ? " is-active" : ""}`}
                            onClick={() => toggleSort(key, column.first)}
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
                  {rows.map((user) => (
                    <UserRow key={user.id} user={user} isSelf={user.id === currentUserId} onDelete={askDelete} />
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {next !== null && (
            <div className="adm-more">
              <ActionButton variant="secondary" onClick={() => void loadMore()} busy={moreBusy} busyLabel={T.loading}>
                {T.loadMore}
              </ActionButton>
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
