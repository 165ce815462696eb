import { useCallback, useEffect, useRef, useState } from "react";
import { getJson } from "../lib/api";
import { ActionButton, ErrorMessage, syncDialog, useFailure, withCursor } from "./shared";
import { T } from "./texts";
import type { Photo, PhotoPage } from "./types";

export interface PhotoCollageProps {
  /** GET endpoint: `{photos, next}`, 48 per page, newest first. */
  endpoint: string;
}

type Phase = "idle" | "loaded";

/** 'Foto collage': loaded on demand, paged with 'Meer laden', a photo opens large. */
export function PhotoCollage({ endpoint }: PhotoCollageProps) {
  const [phase, setPhase] = useState<Phase>("idle");
  const [photos, setPhotos] = useState<readonly Photo[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [openIndex, setOpenIndex] = useState<number | null>(null);
  const loading = useRef(false);
  const controller = useRef<AbortController | null>(null);
  const failure = useFailure();

  useEffect(() => () => controller.current?.abort(), []);

  const load = useCallback(
    async (cursor: string | null) => {
      if (loading.current) return;
      loading.current = true;
      setBusy(true);
      setError(null);
      const abort = new AbortController();
      controller.current = abort;
      const result = await getJson<PhotoPage>(withCursor(endpoint, cursor), { signal: abort.signal });
      if (abort.signal.aborted) return;
      loading.current = false;
      setBusy(false);
      if (!result.ok) {
        setError(failure(result, T.photosLoadFailed));
        return;
      }
      const page = result.data;
      setPhotos((current) => {
        if (cursor === null) return page.photos;
        const seen = new Set(current.map((photo) => photo.dipId));
        return [...current, ...page.photos.filter((photo) => !seen.has(photo.dipId))];
      });
      setNext(page.next);
      setPhase("loaded");
    },
    [endpoint, failure],
  );

  const open = openIndex === null ? null : (photos[openIndex] ?? null);

  return (
    <div className="adm adm-stack">
      {phase === "idle" ? (
        <div className="adm-toolbar">
          <p className="muted adm-intro">{T.photosIntro}</p>
          <ActionButton onClick={() => void load(null)} busy={busy} busyLabel={T.loading}>
            {T.photosLoad}
          </ActionButton>
        </div>
      ) : photos.length === 0 ? (
        <div className="empty-state">
          <p className="empty-state-title">{T.photosEmptyTitle}</p>
          <p>{T.photosEmptyText}</p>
        </div>
      ) : (
        <>
          <p className="muted adm-count" aria-live="polite">
            {T.photosCount(photos.length, next !== null)}
          </p>
          <ul className="photo-grid adm-photo-grid">
            {photos.map((photo, index) => (
              <li key={photo.dipId}>
                <figure className="photo-tile">
                  <button
                    type="button"
                    className="adm-photo-button"
                    onClick={() => setOpenIndex(index)}
                    aria-label={T.photoOpen(photo.userName, photo.dipDateDisplay)}
                  >
                    <img
                      src={photo.thumbnailUrl}
                      alt={T.photoAlt(photo.userName)}
                      loading="lazy"
                      decoding="async"
                      width={320}
                      height={320}
                    />
                  </button>
                  <figcaption>
                    <span className="adm-photo-name">{photo.userName}</span>
                    <span className="adm-photo-date">{photo.dipDateDisplay}</span>
                  </figcaption>
                </figure>
              </li>
            ))}
          </ul>
        </>
      )}
      {error !== null && <ErrorMessage text={error} />}
      {phase === "loaded" && next !== null && (
        <div className="adm-more">
          <ActionButton variant="secondary" onClick={() => void load(next)} busy={busy} busyLabel={T.loading}>
            {T.loadMore}
          </ActionButton>
        </div>
      )}
      <Lightbox
        photo={open}
        hasPrevious={openIndex !== null && openIndex > 0}
        hasNext={openIndex !== null && openIndex < photos.length - 1}
        onPrevious={() => setOpenIndex((index) => (index === null || index === 0 ? index : index - 1))}
        onNext={() =>
          setOpenIndex((index) => (index === null || index >= photos.length - 1 ? index : index + 1))
        }
        onClose={() => setOpenIndex(null)}
      />
    </div>
  );
}

interface LightboxProps {
  photo: Photo | null;
  hasPrevious: boolean;
  hasNext: boolean;
  onPrevious: () => void;
  onNext: () => void;
  onClose: () => void;
}

/** The large photo in a modal `<dialog>`: Escape, the close button or the backdrop close it. */
function Lightbox({ photo, hasPrevious, hasNext, onPrevious, onNext, onClose }: LightboxProps) {
  const ref = useRef<HTMLDialogElement>(null);
  const isOpen = photo !== null;
  // Keep showing the last photo while the dialog closes.
  const [shown, setShown] = useState<Photo | null>(photo);
  if (photo !== null && photo !== shown) setShown(photo);

  const closeRef = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    syncDialog(ref.current, isOpen);
    if (isOpen) closeRef.current?.focus();
  }, [isOpen]);

  return (
    <dialog
      ref={ref}
      className="adm-lightbox"
      aria-label={shown === null ? undefined : T.photoAlt(shown.userName)}
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
      onClick={(event) => {
        if (event.target === event.currentTarget) onClose();
      }}
      onKeyDown={(event) => {
        if (event.key === "ArrowLeft" && hasPrevious) onPrevious();
        else if (event.key === "ArrowRight" && hasNext) onNext();
      }}
    >
      {shown !== null && (
        <figure className="adm-lightbox__figure">
          <img className="adm-lightbox__img" src={shown.photoUrl} alt={T.photoAlt(shown.userName)} />
          <figcaption className="adm-lightbox__caption">
            <strong>{shown.userName}</strong>
            <span>{shown.dipDateDisplay}</span>
          </figcaption>
        </figure>
      )}
      <div className="adm-lightbox__bar">
        <ActionButton variant="secondary" small onClick={onPrevious} disabled={!hasPrevious}>
          {T.photoPrevious}
        </ActionButton>
        <ActionButton variant="secondary" small onClick={onNext} disabled={!hasNext}>
          {T.photoNext}
        </ActionButton>
        <button ref={closeRef} type="button" className="btn btn-primary btn-sm" onClick={onClose}>
          {T.close}
        </button>
      </div>
    </dialog>
  );
}
