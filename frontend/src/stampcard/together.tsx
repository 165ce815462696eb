/**
 * Samen plonsen on the stamp card (apps/together): "Met wie?" in the dip's details, the season's safety
 * briefing with "Ik heb het gelezen", and the "Opwarmen" card after every dip with its one calm line.
 * Everything it says comes from the server's props (`together-data`) and answers.
 */
import { useEffect, useId, useState } from "react";
import { getJson, postForm } from "../lib/api";
import { Button } from "../ui/button";
import type { BriefingReadResponse, BuddyCandidate, BuddyCandidatesResponse, SeasonBriefingData, WarmUpData } from "./types";
import "./together.css";

export const TOGETHER_TEXTS = {
  buddiesLegend: "Met wie?",
  buddiesHelp: "Kies de clubgenoten met wie je plonsde. Zij kunnen de plons daarna op hun eigen kaart zetten.",
  buddiesLoading: "Clubgenoten laden...",
  buddiesFailed: "De clubgenoten konden niet geladen worden. Je plons telt ook zonder.",
  buddiesNone: "Er zijn nog geen clubgenoten om te kiezen.",
  atMeetup: "ging mee met je afspraak",
  swumWith: "plonste eerder met je",
  briefingRead: "Ik heb het gelezen",
  briefingMore: "Meer over veilig plonsen",
  briefingSeason: (date: string) => `Het seizoen begon op ${date}. Lees dit even voor je eerste plons.`,
};

interface BuddyPickerProps {
  url: string;
  selected: readonly number[];
  onChange: (ids: number[]) => void;
  disabled?: boolean;
}

/** "Met wie?": a checkbox per clubmate, loaded once when it is first shown. */
export function BuddyPicker({ url, selected, onChange, disabled = false }: BuddyPickerProps) {
  const [candidates, setCandidates] = useState<BuddyCandidate[] | null>(null);
  const [failed, setFailed] = useState(false);
  const legendId = useId();
  useEffect(() => {
    let live = true;
    void getJson<BuddyCandidatesResponse>(url).then((result) => {
      if (!live) return;
      if (result.ok) setCandidates(result.data.candidates);
      else setFailed(true);
    });
    return () => {
      live = false;
    };
  }, [url]);

  const toggle = (id: number, on: boolean) =>
    onChange(on ? [...selected.filter((other) => other !== id), id] : selected.filter((other) => other !== id));

  return (
    <fieldset className="tg-buddies" aria-describedby={`${legendId}-help`} disabled={disabled}>
      <legend id={legendId}>{TOGETHER_TEXTS.buddiesLegend}</legend>
      <p id={`${legendId}-help`} className="field-help">
        {TOGETHER_TEXTS.buddiesHelp}
      </p>
      {failed ? (
        <p className="field-help">{TOGETHER_TEXTS.buddiesFailed}</p>
      ) : candidates === null ? (
        <p className="field-help">{TOGETHER_TEXTS.buddiesLoading}</p>
      ) : candidates.length === 0 ? (
        <p className="field-help">{TOGETHER_TEXTS.buddiesNone}</p>
      ) : (
        <ul className="tg-buddy-list">
          {candidates.map((candidate) => (
            <li key={candidate.id}>
              <label className="checkbox-row tg-buddy">
                <input
                  type="checkbox"
                  name="buddies"
                  value={candidate.id}
                  checked={selected.includes(candidate.id)}
                  onChange={(event) => toggle(candidate.id, event.currentTarget.checked)}
                />
                <span>
                  {candidate.name}
                  {(candidate.atMeetup || candidate.swumWith) && (
                    <span className="tg-buddy-hint">
                      {" "}
                      ({candidate.atMeetup ? TOGETHER_TEXTS.atMeetup : TOGETHER_TEXTS.swumWith})
                    </span>
                  )}
                </span>
              </label>
            </li>
          ))}
        </ul>
      )}
    </fieldset>
  );
}

/** The season's briefing, once per season; reading it never blocks a dip. */
export function SeasonBriefing({ briefing }: { briefing: SeasonBriefingData }) {
  const [open, setOpen] = useState(briefing.due);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const titleId = useId();
  if (!open) return null;
  const read = async () => {
    setBusy(true);
    const result = await postForm<BriefingReadResponse>(briefing.endpoint, new FormData());
    setBusy(false);
    if (result.ok) setOpen(false);
    else setError(result.message);
  };
  return (
    <section className="card tg-briefing" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        {briefing.title}
      </h2>
      <p className="muted">{TOGETHER_TEXTS.briefingSeason(briefing.seasonStartDisplay)}</p>
      <ul className="tg-points">
        {briefing.points.map((point) => (
          <li key={point}>{point}</li>
        ))}
      </ul>
      <p>
        <a className="tap-link" href={briefing.safetyUrl}>
          {TOGETHER_TEXTS.briefingMore}
        </a>
      </p>
      {error !== null && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      <Button onClick={() => void read()} busy={busy} busyLabel={TOGETHER_TEXTS.briefingRead}>
        {TOGETHER_TEXTS.briefingRead}
      </Button>
    </section>
  );
}

/** After every dip: how to warm up, and at most one calm line of advice (from the server's answer). */
export function WarmUp({ warmUp, advice }: { warmUp: WarmUpData; advice: string | null }) {
  const titleId = useId();
  return (
    <section className="card tg-warmup" aria-labelledby={titleId}>
      <h2 id={titleId} className="card-title">
        {warmUp.title}
      </h2>
      <ul className="tg-points">
        {warmUp.tips.map((tip) => (
          <li key={tip}>{tip}</li>
        ))}
      </ul>
      {advice !== null && <p className="tg-advice">{advice}</p>}
    </section>
  );
}
