import { useCallback, useEffect, useRef, useState, type Dispatch, type ReactNode, type SetStateAction } from "react";
import { getJson } from "../lib/api";
import { ActionButton, useFailure } from "./shared";
import { T } from "./texts";

/**
 * The admin lists (users, invitations, photos) are searched, sorted and paged by the server
 * (apps/adminpanel/keyset.py): `?q=` the search, `?sort=` and `?dir=` the order, `?cursor=` the `next`
 * of the page before. This hook holds one such list; the components show it.
 */

export type SortDirection = "ascending" | "descending";
export interface Sort<K extends string> {
  key: K;
  direction: SortDirection;
}

/** Every page answer: its rows under a list's own key, and the cursor of the following page. */
export interface ServerPage {
  next: string | null;
}

/** Typing waits this long before it asks the server: one request per pause, not per key. */
export const SEARCH_DEBOUNCE_MS = 300;

/** A list's endpoint for one page: search, sort and (for the pages after the first) the cursor. */
export function listUrl(base: string, query: string, sort: Sort<string>, cursor: string | null = null): string {
  const params = new URLSearchParams();
  const needle = query.trim();
  if (needle !== "") params.set("q", needle);
  params.set("sort", sort.key);
  params.set("dir", sort.direction === "ascending" ? "asc" : "desc");
  if (cursor !== null) params.set("cursor", cursor);
  return `${base}?${params.toString()}`;
}

export interface ServerListOptions<Row, K extends string, P extends ServerPage> {
  endpoint: string;
  /** The rows of a page answer. */
  rowsOf: (page: P) => readonly Row[];
  /** A row's id: a page never shows a row twice. */
  idOf: (row: Row) => number;
  /** The server's default order. */
  defaultSort: Sort<K>;
  /** The text when a page fails without a Dutch reason from the server. */
  failedText: string;
  /** Ask for the first page as the list appears, not on a click. */
  loadOnMount?: boolean;
}

export interface ServerList<Row, K extends string> {
  /** The rows on screen; the owner may add, replace or drop rows after an action. */
  rows: readonly Row[];
  setRows: Dispatch<SetStateAction<readonly Row[]>>;
  /** Whether a first page has come. */
  loaded: boolean;
  next: string | null;
  /** A first page is on its way. */
  busy: boolean;
  moreBusy: boolean;
  error: string | null;
  /** The search box. */
  query: string;
  setQuery: (query: string) => void;
  /** The search the rows on screen answer (the box may be ahead of it while typing). */
  shownQuery: string;
  sort: Sort<K>;
  setSort: (sort: Sort<K>) => void;
  /** A column header's click: the other direction of the same key, else the key's first direction. */
  toggleSort: (key: K, first: SortDirection) => void;
  /** The first page of the search and sort in the boxes. */
  load: () => Promise<void>;
  loadMore: () => Promise<void>;
}

/**
 * One server-searched, server-sorted, paged list. Once the first page is there, a new sort asks the
 * server at once and typing after a pause; only the answer to the latest question is shown.
 */
export function useServerList<Row, K extends string, P extends ServerPage>({
  endpoint,
  rowsOf,
  idOf,
  defaultSort,
  failedText,
  loadOnMount = false,
}: ServerListOptions<Row, K, P>): ServerList<Row, K> {
  const [rows, setRows] = useState<readonly Row[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [next, setNext] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [moreBusy, setMoreBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  const [shownQuery, setShownQuery] = useState("");
  const [sort, setSort] = useState<Sort<K>>(defaultSort);
  /** Every first-page request gets a new number; an answer to an older one is dropped (the latest wins). */
  const generation = useRef(0);
  const inFlight = useRef<AbortController | null>(null);
  /** The search and sort of the latest first-page request. */
  const requested = useRef<{ query: string; sort: Sort<K> }>({ query: "", sort: defaultSort });
  const loadingMore = useRef(false);
  const hasPage = useRef(false);
  const failure = useFailure();

  const loadFirst = useCallback(
    async (searchFor: string, sortBy: Sort<K>) => {
      inFlight.current?.abort();
      const controller = new AbortController();
      inFlight.current = controller;
      const mine = ++generation.current;
      requested.current = { query: searchFor, sort: sortBy };
      setBusy(true);
      setError(null);
      const result = await getJson<P>(listUrl(endpoint, searchFor, sortBy), { signal: controller.signal });
      if (mine !== generation.current) return;
      inFlight.current = null;
      setBusy(false);
      if (!result.ok) {
        setError(failure(result, failedText));
        return;
      }
      const page = rowsOf(result.data);
      const first = !hasPage.current;
      hasPage.current = true;
      // Rows the owner added before the very first page came (a new invitation) stay on top.
      setRows((current) => (first ? [...current, ...withoutIds(page, current, idOf)] : page));
      setNext(result.data.next);
      setShownQuery(searchFor.trim());
      setLoaded(true);
    },
    [endpoint, failure, failedText, rowsOf, idOf],
  );

  useEffect(() => {
    const asked = requested.current;
    if (!loaded || (asked.query === query && asked.sort === sort)) return;
    const timer = window.setTimeout(() => void loadFirst(query, sort), asked.sort === sort ? SEARCH_DEBOUNCE_MS : 0);
    return () => window.clearTimeout(timer);
  }, [query, sort, loaded, loadFirst]);

  // Once, as the list appears (the options of the first render); a request under way ends with the list.
  useEffect(() => {
    if (loadOnMount) void loadFirst("", defaultSort);
    return () => inFlight.current?.abort();
  }, []);

  const loadMore = async () => {
    if (loadingMore.current || next === null) return;
    loadingMore.current = true;
    const mine = generation.current;
    setMoreBusy(true);
    setError(null);
    const result = await getJson<P>(listUrl(endpoint, shownQuery, sort, next));
    loadingMore.current = false;
    setMoreBusy(false);
    if (mine !== generation.current) return; // the search or sort changed meanwhile: this page is stale
    if (!result.ok) {
      setError(failure(result, failedText));
      return;
    }
    setRows((current) => [...current, ...withoutIds(rowsOf(result.data), current, idOf)]);
    setNext(result.data.next);
  };

  const toggleSort = (key: K, first: SortDirection) => {
    setSort(
      sort.key === key
        ? { key, direction: sort.direction === "ascending" ? "descending" : "ascending" }
        : { key, direction: first },
    );
  };

  return {
    rows,
    setRows,
    loaded,
    next,
    busy,
    moreBusy,
    error,
    query,
    setQuery,
    shownQuery,
    sort,
    setSort,
    toggleSort,
    load: () => loadFirst(query, sort),
    loadMore,
  };
}

/** `rows` without those whose id is among `shown`'s. */
function withoutIds<Row>(rows: readonly Row[], shown: readonly Row[], idOf: (row: Row) => number): Row[] {
  const ids = new Set(shown.map(idOf));
  return rows.filter((row) => !ids.has(idOf(row)));
}

/** A column of a server-sorted table: `key` null for a column the server does not sort by. */
export interface Column<K extends string> {
  key: K | null;
  label: string;
  numeric?: boolean;
  /** The direction of the first click (names A to Z, counts the highest first); ascending unless said. */
  first?: SortDirection;
}

/** The header row: a sort button with `aria-sort` for each sortable column, then the actions column. */
export function SortHeaders<K extends string>({
  columns,
  sort,
  onSort,
}: {
  columns: readonly Column<K>[];
  sort: Sort<K>;
  onSort: (key: K, first: SortDirection) => void;
}) {
  return (
    <tr>
      {columns.map((column) => {
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
              onClick={() => onSort(key, column.first ?? "ascending")}
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
  );
}

/** The search box of a list: the server searches after a pause in typing. */
export function SearchField({
  id,
  label,
  placeholder,
  value,
  onChange,
  describedBy,
}: {
  id: string;
  /** What it searches: one page holds three lists. */
  label: string;
  placeholder: string;
  value: string;
  onChange: (value: string) => void;
  /** The count of rows shown, read after the label. */
  describedBy?: string;
}) {
  return (
    <div className="field adm-search">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="search"
        value={value}
        placeholder={placeholder}
        autoComplete="off"
        spellCheck={false}
        aria-describedby={describedBy}
        onChange={(event) => onChange(event.target.value)}
      />
    </div>
  );
}

/** 'Meer laden' under a list with a next page. */
export function MoreButton({ onClick, busy }: { onClick: () => void; busy: boolean }) {
  return (
    <div className="adm-more">
      <ActionButton variant="secondary" onClick={onClick} busy={busy} busyLabel={T.loading}>
        {T.loadMore}
      </ActionButton>
    </div>
  );
}

/** A list without rows: its empty state, or (after a search) that nothing matched. */
export function NoRows({
  shownQuery,
  empty,
  noMatch,
}: {
  shownQuery: string;
  empty: ReactNode;
  noMatch: (query: string) => string;
}) {
  return <div className="empty-state">{shownQuery === "" ? empty : <p>{noMatch(shownQuery)}</p>}</div>;
}
