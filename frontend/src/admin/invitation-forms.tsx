import { useId, useState, type FormEvent } from "react";
import { postJson } from "../lib/api";
import { useSingleFlight } from "../lib/single-flight";
import { ActionButton, useFailure } from "./shared";
import { T } from "./texts";
import type { Invitation, InvitationBulkCreated, InvitationCreated } from "./types";

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

export interface CreateFormProps {
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

/** 'Bulk uitnodigingen': one invitation per address in a pasted list. */
export function BulkForm({ endpoint, onCreated }: CreateFormProps) {
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

/** One invitation, with or without an address. */
export function SingleForm({ endpoint, onCreated }: CreateFormProps) {
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
