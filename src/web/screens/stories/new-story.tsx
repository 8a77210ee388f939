import { useEffect, useState } from "preact/hooks";
import { FormError, Notice } from "../../components/field";
import { api, describeError, uploadFile, ApiError } from "../../lib/api";
import { formatNumber, formatPercent } from "../../lib/format";
import type { Story } from "../../lib/types";
import { t } from "../../lib/i18n";

const MAX_CAPTION = 200;
const kindOf = (file: File) =>
  file.type.startsWith("video/") ? "story-video" : file.type.startsWith("audio/") ? "story-voice" : "story";

/** Posting a story: a photo, video or voice recording (uploaded with progress) and an optional caption. */
export function NewStory({ onPosted }: { onPosted: (story: Story) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [caption, setCaption] = useState("");
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState(false);
  const [inputKey, setInputKey] = useState(0);

  async function submit(e: Event) {
    e.preventDefault();
    if (!file) return;
    setError(null);
    setDone(false);
    setProgress(0);
    try {
      const upload = await uploadFile(file, kindOf(file), setProgress);
      const { story } = await api.post<{ story: Story }>("/social/stories", {
        mediaUrl: upload.url,
        ...(caption.trim() ? { caption: caption.trim() } : {}),
      });
      setFile(null);
      setCaption("");
      setInputKey((k) => k + 1);
      setDone(true);
      onPosted(story);
    } catch (err) {
      setError(err);
    } finally {
      setProgress(null);
    }
  }

  const apiError = error instanceof ApiError ? error : null;
  // an upload refused for its size or type names `file`; the story's own checks name mediaUrl
  const fileError = apiError && (apiError.field("file") ?? apiError.field("mediaUrl") ?? apiError.field("kind"));
  const captionError = apiError?.field("caption");
  const busy = progress !== null;
  const left = MAX_CAPTION - caption.length;
  return (
    <form class="card form" id="new-story" aria-labelledby="new-story-title" onSubmit={submit}>
      <h2 id="new-story-title">{t("stories.new.title")}</h2>
      <div class="field">
        <span class="story-file-label" id="story-file-label">
          {t("stories.new.file")}
        </span>
        <label class="button file-button story-file-pick">
          {file ? t("stories.new.chooseAnother") : t("stories.new.choose")}
          <input
            key={inputKey}
            id="story-file"
            type="file"
            class="visually-hidden"
            accept="image/*,video/*,audio/*"
            required
            aria-labelledby="story-file-label"
            aria-invalid={fileError ? true : undefined}
            aria-describedby={fileError ? "story-file-error" : undefined}
            onChange={(e) => (setFile(e.currentTarget.files?.[0] ?? null), setDone(false))}
          />
        </label>
        {file && <ChosenFile file={file} />}
        {fileError && (
          <p class="field-error" id="story-file-error">
            {fileError}
          </p>
        )}
      </div>
      <div class="field">
        <label for="story-caption">{t("stories.new.caption")}</label>
        <textarea
          id="story-caption"
          rows={2}
          value={caption}
          onInput={(e) => setCaption(e.currentTarget.value)}
          aria-invalid={captionError || left < 0 ? true : undefined}
          aria-describedby="story-caption-count"
        />
        <p class={left < 0 ? "field-error" : "hint"} id="story-caption-count">
          {left < 0 ? t("common.charactersOver", { count: -left }) : t("common.charactersLeft", { count: left })}
        </p>
        {captionError && <p class="field-error">{t("stories.new.captionError", { error: captionError })}</p>}
      </div>
      {busy && (
        <div class="field">
          <label for="story-progress">{t("stories.new.uploading")}</label>
          <progress id="story-progress" max={1} value={progress}>
            {formatPercent(progress)}
          </progress>
        </div>
      )}
      <FormError message={error && !fileError && !captionError ? describeError(error) : null} />
      <Notice message={done ? t("stories.new.done") : null} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy || !file || left < 0}>
          {busy ? t("stories.new.uploadingShare", { share: formatPercent(progress) }) : t("stories.new.share")}
        </button>
      </div>
    </form>
  );
}

/** What the person picked, shown as the story will show it (a picture, a playable video or recording). */
function ChosenFile({ file }: { file: File }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    const made = URL.createObjectURL(file);
    setUrl(made);
    return () => URL.revokeObjectURL(made);
  }, [file]);
  if (!url) return null;
  const kind = kindOf(file);
  return (
    <figure class="story-chosen">
      {kind === "story" ? (
        <img src={url} alt="" />
      ) : kind === "story-video" ? (
        <video src={url} controls muted playsInline aria-label={t("stories.new.preview", { name: file.name })} />
      ) : (
        <audio src={url} controls aria-label={t("stories.new.preview", { name: file.name })} />
      )}
      <figcaption>{file.name}</figcaption>
    </figure>
  );
}
