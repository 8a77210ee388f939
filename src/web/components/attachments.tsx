import { useState } from "preact/hooks";
import { describeError, uploadFile } from "../lib/api";
import { t } from "../lib/i18n";

/** A file attached to a draft: being uploaded (url null), uploaded, failed, or already stored (editing). */
export interface Attachment {
  key: string;
  name: string;
  /** what the list shows: a local object URL while uploading, the thumbnail of a stored file */
  preview: string | null;
  progress: number;
  url: string | null;
  error: string | null;
  /** an image: it takes a description (alt text) */
  image: boolean;
  /** the description the person wrote for it */
  alt: string;
}

/** Longest description of an image (the server's limit, in characters). */
export const MAX_ALT_LENGTH = 1500;

/**
 * The files of a draft (a post, a post being edited, a comment): each uploads as soon as it is
 * picked, with its progress; KINDOF names the upload kind of a file, MAX caps the list.
 */
export function useAttachments(kindOf: (file: File) => string, max: number, initial: Attachment[] = []) {
  const [items, setItems] = useState<Attachment[]>(initial);
  const patch = (key: string, change: Partial<Attachment>) =>
    setItems((list) => list.map((a) => (a.key === key ? { ...a, ...change } : a)));

  function pick(files: FileList | null) {
    for (const file of Array.from(files ?? []).slice(0, Math.max(0, max - items.length))) {
      const key = crypto.randomUUID();
      const preview = file.type.startsWith("image/") ? URL.createObjectURL(file) : null;
      const image = file.type.startsWith("image/");
      setItems((list) => [
        ...list,
        { key, name: file.name, preview, progress: 0, url: null, error: null, image, alt: "" },
      ]);
      uploadFile(file, kindOf(file), (progress) => patch(key, { progress }), file.name)
        .then((up) => patch(key, { url: up.url, progress: 1 }))
        .catch((err) => patch(key, { error: describeError(err) }));
    }
  }

  const release = (a: Attachment) => a.preview?.startsWith("blob:") && URL.revokeObjectURL(a.preview);
  function remove(a: Attachment) {
    release(a);
    setItems((list) => list.filter((x) => x.key !== a.key));
  }
  function reset(next: Attachment[] = []) {
    items.forEach(release);
    setItems(next);
  }

  return {
    items,
    pick,
    remove,
    reset,
    setAlt: (key: string, alt: string) => patch(key, { alt }),
    full: items.length >= max,
    uploading: items.some((a) => !a.url && !a.error),
    urls: items.flatMap((a) => (a.url ? [a.url] : [])),
    /** the descriptions of the uploaded files, by the index of urls (empty for none) */
    alts: items.flatMap((a) => (a.url ? [a.alt.trim()] : [])),
  };
}

/** A file already stored (a post's image when editing it) as an attachment of the draft, called NAME. */
export const storedAttachment = (
  url: string,
  preview: string | null,
  name: string,
  described?: { alt: string },
): Attachment => ({
  key: url,
  name,
  preview,
  progress: 1,
  url,
  error: null,
  image: described !== undefined,
  alt: described?.alt ?? "",
});

/**
 * The draft's files with their progress, errors and a Remove button each; with ONALT, a
 * description field (alt text) under each image.
 */
export function AttachmentList({
  items,
  onRemove,
  onAlt,
}: {
  items: Attachment[];
  onRemove: (a: Attachment) => void;
  onAlt?: (key: string, alt: string) => void;
}) {
  if (items.length === 0) return null;
  return (
    <ul class="attachments" aria-label={t("common.media.attached")}>
      {items.map((a) => (
        <li key={a.key}>
          {a.preview ? <img src={a.preview} alt="" /> : <span class="file-name">{a.name}</span>}
          {!a.url && !a.error && (
            <progress max={1} value={a.progress} aria-label={t("common.media.uploading", { name: a.name })} />
          )}
          {a.error && <span class="field-error">{a.error}</span>}
          {onAlt && a.image && (
            <label class="attachment-alt">
              {t("common.media.alt")}
              <span class="visually-hidden"> {t("common.media.altOf", { name: a.name })}</span>
              <textarea
                rows={2}
                maxLength={MAX_ALT_LENGTH}
                value={a.alt}
                onInput={(e) => onAlt(a.key, e.currentTarget.value)}
              />
            </label>
          )}
          <button type="button" class="small" onClick={() => onRemove(a)}>
            {t("common.media.remove", { name: a.name })}
          </button>
        </li>
      ))}
    </ul>
  );
}

/** A button-looking label over a hidden file input. */
export function AddFilesButton({
  label,
  accept,
  onPick,
  disabled,
}: {
  label: string;
  accept: string;
  onPick: (files: FileList | null) => void;
  disabled?: boolean;
}) {
  return (
    <label class={`button file-button${disabled ? " disabled" : ""}`}>
      {label}
      <input
        type="file"
        accept={accept}
        multiple
        class="visually-hidden"
        disabled={disabled}
        onChange={(e) => (onPick(e.currentTarget.files), (e.currentTarget.value = ""))}
      />
    </label>
  );
}
