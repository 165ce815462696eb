import { useEffect, useState } from "react";
import { T } from "./texts";

export interface PhotoPreviewProps {
  file: File;
  busy: boolean;
  /** Drops the chosen photo; the form puts the focus back on the picker. */
  onRemove: () => void;
}

/**
 * The chosen photo before it is sent: a real thumbnail (an object URL, revoked when the file changes or the
 * preview goes), its name and 'Foto weghalen'. A file the browser cannot draw (a HEIC photo on some
 * browsers) gets a camera icon instead of a broken image; the server still judges the file.
 */
export function PhotoPreview({ file, busy, onRemove }: PhotoPreviewProps) {
  const [url, setUrl] = useState<string | null>(null);
  const [drawable, setDrawable] = useState(true);

  useEffect(() => {
    setDrawable(true);
    if (typeof URL.createObjectURL !== "function") {
      setUrl(null);
      return;
    }
    const objectUrl = URL.createObjectURL(file);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [file]);

  return (
    <div className="sc-preview">
      {url !== null && drawable ? (
        <img src={url} alt={T.photoPreviewAlt} className="sc-preview__img" onError={() => setDrawable(false)} />
      ) : (
        <span className="sc-preview__img sc-preview__placeholder" role="img" aria-label={T.photoPreviewAlt}>
          <svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false">
            <path
              d="M9 4 7.5 6H5a2 2 0 0 0-2 2v10a2 2 0 0 0 2 2h14a2 2 0 0 0 2-2V8a2 2 0 0 0-2-2h-2.5L15 4H9Zm3 5a4 4 0 1 1 0 8 4 4 0 0 1 0-8Z"
              fill="currentColor"
            />
          </svg>
        </span>
      )}
      <span className="sc-preview__name">{file.name}</span>
      <button type="button" className="sc-link" disabled={busy} onClick={onRemove}>
        {T.photoRemove}
      </button>
    </div>
  );
}
