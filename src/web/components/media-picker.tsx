import { useId, useState } from "preact/hooks";
import { describeError, uploadFile } from "../lib/api";
import { t } from "../lib/i18n";
import type { Upload } from "../lib/types";

/**
 * One picture (or video) chosen from the device and uploaded at once with a progress bar;
 * KINDOF picks the upload kind from the file (e.g. cover or cover-video).
 */
export function MediaPicker({
  label,
  accept,
  kindOf,
  onUploaded,
  disabled,
}: {
  label: string;
  accept: string;
  kindOf: (file: File) => string;
  onUploaded: (upload: Upload) => void;
  disabled?: boolean;
}) {
  const id = useId();
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  async function pick(file: File | undefined) {
    if (!file) return;
    setError(null);
    setProgress(0);
    try {
      onUploaded(await uploadFile(file, kindOf(file), setProgress));
    } catch (err) {
      setError(describeError(err));
    } finally {
      setProgress(null);
    }
  }
  return (
    <div class="field">
      <label class="button file-button" for={id}>
        {label}
      </label>
      <input
        id={id}
        type="file"
        accept={accept}
        class="visually-hidden"
        disabled={disabled || progress !== null}
        onChange={(e) => (pick(e.currentTarget.files?.[0]), (e.currentTarget.value = ""))}
      />
      {progress !== null && (
        <progress max={1} value={progress} aria-label={t("common.media.uploadingLabel", { label })} />
      )}
      {error && <p class="field-error">{error}</p>}
    </div>
  );
}
