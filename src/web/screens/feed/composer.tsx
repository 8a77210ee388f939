import { useState } from "preact/hooks";
import { FormError } from "../../components/field";
import { api, describeError, uploadFile } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { formatNumber } from "../../lib/format";
import type { Post } from "../../lib/types";

export const MAX_POST_LENGTH = 2000;
const MAX_IMAGES = 10;

interface Attachment {
  key: string;
  name: string;
  preview: string | null;
  progress: number;
  url: string | null;
  error: string | null;
}

const kindOf = (file: File) =>
  file.type.startsWith("video/") ? "post-video" : file.type.startsWith("image/") ? "post" : "post-file";

/** Writing a post: text with a counter, images uploaded as they are picked (with progress), an optional poll. */
export function Composer({ onPosted }: { onPosted: (post: Post) => void }) {
  const [content, setContent] = useState("");
  const [attachments, setAttachments] = useState<Attachment[]>([]);
  const [pollOn, setPollOn] = useState(false);
  const [question, setQuestion] = useState("");
  const [options, setOptions] = useState(["", ""]);
  const [multiple, setMultiple] = useState(false);
  const { busy, error, apiError, run } = useAction();
  // one id per draft: a retried submit after a lost answer does not post twice
  const [clientPostId, setClientPostId] = useState(() => crypto.randomUUID());

  const patch = (key: string, change: Partial<Attachment>) =>
    setAttachments((list) => list.map((a) => (a.key === key ? { ...a, ...change } : a)));

  function pick(files: FileList | null) {
    for (const file of Array.from(files ?? []).slice(0, MAX_IMAGES - attachments.length)) {
      const key = crypto.randomUUID();
      const preview = file.type.startsWith("image/") ? URL.createObjectURL(file) : null;
      setAttachments((list) => [...list, { key, name: file.name, preview, progress: 0, url: null, error: null }]);
      uploadFile(file, kindOf(file), (progress) => patch(key, { progress }))
        .then((up) => patch(key, { url: up.url, progress: 1 }))
        .catch((err) => patch(key, { error: describeError(err) }));
    }
  }

  function removeAttachment(a: Attachment) {
    if (a.preview) URL.revokeObjectURL(a.preview);
    setAttachments((list) => list.filter((x) => x.key !== a.key));
  }

  const uploading = attachments.some((a) => !a.url && !a.error);
  const pollOptions = options.map((o) => o.trim()).filter(Boolean);
  const empty = !content.trim() && !attachments.some((a) => a.url) && !(pollOn && pollOptions.length >= 2);
  const over = content.length > MAX_POST_LENGTH;

  const submit = run(async () => {
    const { post } = await api.post<{ post: Post }>("/social/posts", {
      content,
      clientPostId,
      imageUrls: attachments.filter((a) => a.url).map((a) => a.url),
      ...(pollOn
        ? { poll: { ...(question.trim() ? { question: question.trim() } : {}), options: pollOptions, multiple } }
        : {}),
    });
    attachments.forEach((a) => a.preview && URL.revokeObjectURL(a.preview));
    setContent("");
    setAttachments([]);
    setPollOn(false);
    setQuestion("");
    setOptions(["", ""]);
    setClientPostId(crypto.randomUUID());
    onPosted(post);
  });

  const contentError = apiError?.field("content");
  const pollError = apiError && Object.entries(apiError.fieldErrors).find(([f]) => f.startsWith("poll"))?.[1][0];
  const remaining = MAX_POST_LENGTH - content.length;
  return (
    <form class="card form post-composer" onSubmit={submit} aria-label="New post">
      <div class="field">
        <label for="composer-text">What's new?</label>
        <textarea
          id="composer-text"
          rows={3}
          value={content}
          onInput={(e) => setContent(e.currentTarget.value)}
          aria-describedby="composer-count"
          aria-invalid={over || !!contentError || undefined}
        />
        <p id="composer-count" class={over ? "counter over" : "counter"} aria-live={remaining < 100 ? "polite" : "off"}>
          {remaining >= 0
            ? `${formatNumber(remaining)} characters left`
            : `${formatNumber(-remaining)} characters too many`}
        </p>
        {contentError && <p class="field-error">{contentError}</p>}
      </div>
      {attachments.length > 0 && (
        <ul class="attachments" aria-label="Attached files">
          {attachments.map((a) => (
            <li key={a.key}>
              {a.preview ? <img src={a.preview} alt="" /> : <span class="file-name">{a.name}</span>}
              {!a.url && !a.error && <progress max={1} value={a.progress} aria-label={`Uploading ${a.name}`} />}
              {a.error && <span class="field-error">{a.error}</span>}
              <button type="button" class="small" onClick={() => removeAttachment(a)}>
                Remove {a.name}
              </button>
            </li>
          ))}
        </ul>
      )}
      {pollOn && (
        <fieldset class="poll-editor">
          <legend>Poll</legend>
          <div class="field">
            <label for="poll-question">Question (optional)</label>
            <input
              id="poll-question"
              value={question}
              maxLength={300}
              onInput={(e) => setQuestion(e.currentTarget.value)}
            />
          </div>
          {options.map((o, i) => (
            <div class="field" key={i}>
              <label for={`poll-option-${i}`}>Choice {i + 1}</label>
              <input
                id={`poll-option-${i}`}
                value={o}
                maxLength={100}
                onInput={(e) => setOptions(options.map((x, j) => (j === i ? e.currentTarget.value : x)))}
              />
            </div>
          ))}
          <div class="actions">
            {options.length < 12 && (
              <button type="button" class="small" onClick={() => setOptions([...options, ""])}>
                Add a choice
              </button>
            )}
            <label class="choice">
              <input type="checkbox" checked={multiple} onChange={(e) => setMultiple(e.currentTarget.checked)} />{" "}
              Several answers allowed
            </label>
          </div>
          {pollError && <p class="field-error">{pollError}</p>}
        </fieldset>
      )}
      <FormError message={error && !contentError && !pollError ? describeError(error) : null} />
      <div class="actions composer-actions">
        <label class="button file-button">
          Add images
          <input
            type="file"
            accept="image/*,video/*"
            multiple
            class="visually-hidden"
            onChange={(e) => (pick(e.currentTarget.files), (e.currentTarget.value = ""))}
          />
        </label>
        <button type="button" aria-pressed={pollOn} onClick={() => setPollOn(!pollOn)}>
          Poll
        </button>
        <button type="submit" class="primary" disabled={busy || uploading || empty || over}>
          Post
        </button>
      </div>
    </form>
  );
}
