import { useEffect, useId, useRef, useState } from "react";
import { MoreButton, NoRows, SearchField, useServerList, type Sort } from "./server-list";
import { ActionButton, ErrorMessage, syncDialog } from "./shared";
import { T } from "./texts";
import type { Photo, PhotoPage } from "./types";

export interface PhotoCollageProps {
  /** GET endpoint: `{photos, next}`, 48 per page, newest first unless `dir=asc`; `q` searches the members. */
  endpoint: string;
}

/** The server's one sort key: when the photo was registered (see PHOTOS in apps/adminpanel/selectors.py). */
type PhotoSortKey = "createdAt";
const NEWEST_FIRST: Sort<PhotoSortKey> = { key: "createdAt", direction: "descending" };
const OLDEST_FIRST: Sort<PhotoSortKey> = { key: "createdAt", direction: "ascending" };
const photosOf = (page: PhotoPage) => page.photos;
const idOf = (photo: Photo) => photo.dipId;

/** 'Foto collage': loaded on demand, searched by member and paged with 'Meer laden', a photo opens large. */
export function PhotoCollage({ endpoint }: PhotoCollageProps) {
  const list = useServerList({
    endpoint,
    rowsOf: photosOf,
    idOf,
    defaultSort: NEWEST_FIRST,
    failedText: T.photosLoadFailed,
  });
  const [openIndex, setOpenIndex] = useState<number | null>(null);
  const searchId = useId();
  const orderId = useId();
  const countId = useId();
  const { rows: photos, loaded, next } = list;

  const open = openIndex === null ? null : (photos[openIndex] ?? null);

  return (
    <div className="adm adm-stack">
      {!loaded ? (
        <div className="adm-toolbar">
          <p className="muted adm-intro">{T.photosIntro}</p>
          <ActionButton onClick={() => void list.load()} busy={list.busy} busyLabel={T.loading}>
            {T.photosLoad}
          </ActionButton>
        </div>
      ) : (
        <>
          <div className="adm-toolbar">
            <SearchField
              id={searchId}
            label={T.photosSearch}
              placeholder={T.searchNameOrEmail}
              value={list.query}
              onChange={list.setQuery}
              describedBy={countId}
            />
            <div className="field adm-order">
              <label htmlFor={orderId}>{T.photosOrder}</label>
              <select
                id={orderId}
                value={list.sort.direction}
                onChange={(event) => list.setSort(event.target.value === "ascending" ? OLDEST_FIRST : NEWEST_FIRST)}
              >
                <option value="descending">{T.photosNewest}</option>
                <option value="ascending">{T.photosOldest}</option>
              </select>
            </div>
          </div>
          <p id={countId} className="muted adm-count" aria-live="polite">
            {T.photosCount(photos.length, next !== null)}
          </p>
          {photos.length === 0 ? (
            <NoRows
              shownQuery={list.shownQuery}
              empty={
                <>
                  <p className="empty-state-title">{T.photosEmptyTitle}</p>
                  <p>{T.photosEmptyText}</p>
                </>
              }
              noMatch={T.photosNoMatch}
            />
          ) : (
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
          )}
        </>
      )}
      {list.error !== null && <ErrorMessage text={list.error} />}
      {loaded && next !== null && <MoreButton onClick={() => void list.loadMore()} busy={list.moreBusy} />}
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
