import { useCallback, useEffect, useMemo, useRef, useState, type FormEvent } from "react";
import { getCsrfToken, getJson, postJson } from "../lib/api";
import { newRequestId } from "../lib/request-id";
import { SHORE_SYNC_TAG, keepList, keepTap, keptList, sendWaitingTaps, waitingTaps } from "./shore-queue";
import { applyTaps, inWater, minutesSince, summary, type ShoreTap, type TapKind } from "./shore-taps";
import type { ShoreState, ShoreSwimmer, WaterkantProps } from "./types";
import "./waterkant.css";

/** How often the list is asked again while the page is in view: the other organiser's taps within seconds. */
const ASK_EVERY_MS = 3_000;
const TICK_MS = 15_000;

const clock = (iso: string | null): string =>
  iso === null ? "" : new Date(iso).toLocaleTimeString("nl-NL", { hour: "2-digit", minute: "2-digit" });

function isState(body: unknown): body is ShoreState {
  return typeof body === "object" && body !== null && Array.isArray((body as ShoreState).swimmers);
}

/** The service worker sends the waiting taps once there is signal, also when this page was closed before. */
async function askForSync(): Promise<void> {
  try {
    const registration = await navigator.serviceWorker?.getRegistration();
    const sync = (registration as (ServiceWorkerRegistration & { sync?: { register(tag: string): Promise<void> } }) | undefined)?.sync;
    await sync?.register(SHORE_SYNC_TAG);
  } catch {
    // No worker or no Background Sync (Safari): the page sends them when it is open again.
  }
}

/** The newer of two lists the server sent (by its clock). */
function newer(a: ShoreState, b: ShoreState | undefined): ShoreState {
  return b !== undefined && Date.parse(b.now) > Date.parse(a.now) ? b : a;
}

export function Waterkant({ state: initial, urls, member }: WaterkantProps) {
  const [server, setServer] = useState<ShoreState>(initial);
  const [waiting, setWaiting] = useState<ShoreTap[]>([]);
  const [offline, setOffline] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  // The server's clock minus the phone's: minutes count by the server's clock.
  const skew = useRef(Date.parse(initial.now) - Date.now());
  const eventId = initial.event_id;

  const received = useCallback((state: ShoreState) => {
    skew.current = Date.parse(state.now) - Date.now();
    setServer((current) => newer(current, state));
    void keepList(state).catch(() => undefined);
  }, []);

  const refreshWaiting = useCallback(async () => {
    setWaiting(await waitingTaps(member, eventId));
  }, [eventId, member]);

  const sendWaiting = useCallback(async () => {
    const answers = await sendWaitingTaps({
      eventId,
      member,
      csrfToken: getCsrfToken(),
      onAnswer: (_tap, answer) => {
        if (isState(answer.body)) received(answer.body);
        else if (typeof answer.body === "object" && answer.body !== null && "error" in answer.body) {
          setMessage(String((answer.body as { error: unknown }).error));
        }
      },
    });
    setOffline(answers.some((answer) => answer.status === 0));
    await refreshWaiting();
  }, [eventId, member, received, refreshWaiting]);

  const ask = useCallback(async () => {
    await sendWaiting();
    const result = await getJson<ShoreState>(urls.state);
    if (result.ok) {
      setOffline(false);
      received(result.data);
    } else if (result.status === 0) setOffline(true);
  }, [sendWaiting, urls.state, received]);

  useEffect(() => {
    // A reload without signal: the list kept on the phone when it is newer than the page's, and the waiting taps.
    void keptList(eventId)
      .then((kept) => kept !== undefined && setServer((current) => newer(current, kept)))
      .catch(() => undefined);
    void refreshWaiting().then(() => sendWaiting());
    const asking = window.setInterval(() => {
      if (document.visibilityState === "visible") void ask();
    }, ASK_EVERY_MS);
    const ticking = window.setInterval(() => setNow(Date.now()), TICK_MS);
    const online = () => void ask();
    window.addEventListener("online", online);
    return () => {
      window.clearInterval(asking);
      window.clearInterval(ticking);
      window.removeEventListener("online", online);
    };
  }, [eventId, ask, refreshWaiting, sendWaiting]);

  const shown = useMemo(() => applyTaps(server, waiting), [server, waiting]);
  const totals = summary(shown);
  const serverNow = now + skew.current;
  const longestMinutes = totals.longest === null ? 0 : minutesSince(totals.longest.since, serverNow);
  const overLimit = totals.longest !== null && longestMinutes >= shown.notice_minutes;

  const tap = async (swimmer: string, kind: TapKind, firstName?: string) => {
    setMessage(null);
    const entry: ShoreTap = {
      id: newRequestId(),
      eventId,
      member,
      swimmer,
      kind,
      tappedAt: new Date().toISOString(),
      endpoint: urls.tap,
      csrfToken: getCsrfToken(),
    };
    if (firstName !== undefined) entry.firstName = firstName;
    setWaiting((current) => [...current, entry]);
    await keepTap(entry);
    await askForSync();
    await sendWaiting();
  };

  const addGuest = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const field = event.currentTarget.elements.namedItem("voornaam") as HTMLInputElement;
    const name = field.value.trim();
    if (name === "") {
      setMessage("Vul de voornaam van de gast in.");
      return;
    }
    field.value = "";
    void tap(`nieuw-${newRequestId()}`, "gast", name);
  };

  const addMember = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const field = event.currentTarget.elements.namedItem("lid") as HTMLInputElement;
    setMessage(null);
    const result = await postJson<ShoreState>(urls.member, { name: field.value });
    if (result.ok) {
      field.value = "";
      received(result.data);
    } else if (result.status === 0) {
      setMessage("Zonder verbinding kan er geen lid bij. Voeg iemand nu toe als gast, met de voornaam.");
    } else setMessage(result.message);
  };

  const close = async () => {
    setMessage(null);
    await sendWaiting();
    const result = await postJson<ShoreState>(urls.close, {});
    if (result.ok) received(result.data);
    else if (result.status === 0) setMessage("Zonder verbinding kan de lijst niet dicht. Probeer het zo nog eens.");
    else setMessage(result.message);
  };

  return (
    <div className="wk">
      <section className={overLimit ? "wk-top wk-top--long" : "wk-top"} aria-live="polite" aria-label="Nu in het water">
        <p className="wk-count">
          <strong>{totals.inWater}</strong> {totals.inWater === 1 ? "zwemmer" : "zwemmers"} in het water
        </p>
        {totals.longest !== null && (
          <p className="wk-longest">
            Langst erin: <strong>{totals.longest.name}</strong>, {longestMinutes} min
          </p>
        )}
        <p className="wk-limit">
          Na {shown.notice_minutes} minuten valt een naam op. <a href={urls.veilig}>Waarom kort vaak beter is</a>
        </p>
      </section>

      {offline && (
        <p className="wk-status" role="status">
          Geen verbinding. {waiting.length > 0 ? `${waiting.length} ${waiting.length === 1 ? "tik wacht" : "tikken wachten"} op de telefoon en ${waiting.length === 1 ? "gaat" : "gaan"} mee zodra er bereik is.` : "De lijst is zoals je hem het laatst zag."}
        </p>
      )}
      {message !== null && (
        <p className="wk-message" role="alert">
          {message}
        </p>
      )}
      {!shown.open && <p className="wk-status">De lijst aan de waterkant is er op de dag van de zwempartij zelf.</p>}
      {shown.closed_at !== null && (
        <p className="wk-closed" role="status">
          Iedereen is eruit, om {clock(shown.closed_at)}. De lijst is dicht; wie toch nog het water in gaat, tik je gewoon weer aan.
        </p>
      )}

      <ul className="wk-list">
        {shown.swimmers.map((swimmer) => (
          <SwimmerRow
            key={swimmer.ref}
            swimmer={swimmer}
            open={shown.open}
            limit={shown.notice_minutes}
            now={serverNow}
            onTap={(kind) => void tap(swimmer.ref, kind)}
          />
        ))}
      </ul>
      {shown.swimmers.length === 0 && <p className="muted">Nog niemand op de lijst. Voeg hieronder een lid of gast toe.</p>}

      {shown.open && (
        <>
          <button
            type="button"
            className="btn btn-primary btn-block wk-everyone-out"
            disabled={totals.inWater > 0 || !totals.anyoneWentIn || shown.closed_at !== null}
            onClick={() => void close()}
          >
            Iedereen is eruit
          </button>
          {totals.inWater > 0 && <p className="wk-hint">Kan pas als de lijst zegt dat niemand meer in het water is.</p>}
          <form className="wk-add" onSubmit={addGuest}>
            <label htmlFor="wk-guest">Gast erbij (alleen de voornaam)</label>
            <div className="wk-add-row">
              <input id="wk-guest" name="voornaam" className="input" maxLength={40} autoComplete="off" />
              <button type="submit" className="btn btn-secondary">Gast erbij</button>
            </div>
          </form>
          <form className="wk-add" onSubmit={(event) => void addMember(event)}>
            <label htmlFor="wk-member">Lid erbij (naam of e-mailadres)</label>
            <div className="wk-add-row">
              <input id="wk-member" name="lid" className="input" maxLength={254} autoComplete="off" />
              <button type="submit" className="btn btn-secondary">Lid erbij</button>
            </div>
          </form>
        </>
      )}
    </div>
  );
}

function SwimmerRow(props: {
  swimmer: ShoreSwimmer;
  open: boolean;
  limit: number;
  now: number;
  onTap: (kind: TapKind) => void;
}) {
  const { swimmer, open, limit, now, onTap } = props;
  const inside = inWater(swimmer);
  const minutes = inside && swimmer.went_in_at !== null ? minutesSince(Date.parse(swimmer.went_in_at), now) : 0;
  const long = inside && minutes >= limit;
  const where = inside
    ? `In het water sinds ${clock(swimmer.went_in_at)}, ${minutes} min`
    : swimmer.came_out_at !== null
      ? `Eruit om ${clock(swimmer.came_out_at)}`
      : "Op de kant";
  return (
    <li className={`wk-row${inside ? " wk-row--in" : ""}${long ? " wk-row--long" : ""}`} data-swimmer={swimmer.ref}>
      <div className="wk-who">
        <span className="wk-name">{swimmer.name}</span>
        {swimmer.guest && <span className="wk-guest">gast</span>}
        <span className="wk-where">{where}</span>
      </div>
      {open && (
        <button
          type="button"
          className={inside ? "btn btn-outline wk-tap" : "btn btn-primary wk-tap"}
          onClick={() => onTap(inside ? "uit" : "in")}
        >
          <span className="visually-hidden">{swimmer.name}: </span>
          {inside ? "Eruit" : "In het water"}
        </button>
      )}
    </li>
  );
}
