import { useState } from "preact/hooks";
import { ComposerInput } from "../../components/composer-input";
import { FormError } from "../../components/field";
import { AddFilesButton, AttachmentList, useAttachments } from "../../components/attachments";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { drafts, POST_DRAFT } from "../../lib/drafts";
import { account } from "../../lib/session";
import type { Post } from "../../lib/types";
import { ComposerLinkPreview, useLinkPreview } from "../../components/link-preview";
import { t } from "../../lib/i18n";

export const MAX_POST_LENGTH = 2000;
export const MAX_POST_IMAGES = 10;
export const MAX_CONTENT_WARNING_LENGTH = 200;

export const postUploadKind = (file: File) =>
  file.type.startsWith("video/") ? "post-video" : file.type.startsWith("image/") ? "post" : "post-file";

/**
 * Writing a post: text with a counter (and @/# suggestions), images uploaded as they are picked
 * (with progress), an optional poll. The text and content warning are kept as a draft on the
 * device until the post is sent.
 */
export function Composer({ onPosted }: { onPosted: (post: Post) => void }) {
  const me = account.value!.id;
  const [content, setContent] = useState(() => drafts.read(me, POST_DRAFT)?.text ?? "");
  const linkPreview = useLinkPreview(content);
  const [warning, setWarning] = useState(() => drafts.read(me, POST_DRAFT)?.contentWarning ?? "");
  // written as it is typed, not in an effect: a reload right after a keystroke keeps it
  const typeContent = (text: string) => {
    setContent(text);
    drafts.write(me, POST_DRAFT, { text, contentWarning: warning });
  };
  const typeWarning = (contentWarning: string) => {
    setWarning(contentWarning);
    drafts.write(me, POST_DRAFT, { text: content, contentWarning });
  };
  const attachments = useAttachments(postUploadKind, MAX_POST_IMAGES);
  const [pollOn, setPollOn] = useState(false);
  const [question, setQuestion] = useState("");
  const [options, setOptions] = useState(["", ""]);
  const [multiple, setMultiple] = useState(false);
  const { busy, error, apiError, run } = useAction();
  // one id per draft: a retried submit after a lost answer does not post twice
  const [clientPostId, setClientPostId] = useState(() => crypto.randomUUID());

  const pollOptions = options.map((o) => o.trim()).filter(Boolean);
  const empty = !content.trim() && attachments.urls.length === 0 && !(pollOn && pollOptions.length >= 2);
  const over = content.length > MAX_POST_LENGTH;

  const submit = run(async () => {
    const { post } = await api.post<{ post: Post }>("/social/posts", {
      content,
      clientPostId,
      ...(warning.trim() ? { contentWarning: warning.trim() } : {}),
      imageUrls: attachments.urls,
      imageAlts: attachments.alts,
      ...linkPreview.request,
      ...(pollOn
        ? { poll: { ...(question.trim() ? { question: question.trim() } : {}), options: pollOptions, multiple } }
        : {}),
    });
    setContent("");
    setWarning("");
    drafts.remove(me, POST_DRAFT);
    linkPreview.reset();
    attachments.reset();
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
    <form class="card form post-composer" onSubmit={submit} aria-label={t("feed.composer.label")}>
      <div class="field">
        <label for="composer-text">{t("feed.composer.text")}</label>
        <ComposerInput
          id="composer-text"
          rows={3}
          value={content}
          onValue={typeContent}
          describedBy="composer-count"
          invalid={over || !!contentError}
        />
        <p id="composer-count" class={over ? "counter over" : "counter"} aria-live={remaining < 100 ? "polite" : "off"}>
          {remaining >= 0
            ? t("common.charactersLeft", { count: remaining })
            : t("common.charactersOver", { count: -remaining })}
        </p>
        {contentError && <p class="field-error">{contentError}</p>}
      </div>
      <ComposerLinkPreview state={linkPreview} />
      <div class="field">
        <label for="composer-warning">{t("feed.composer.warning")}</label>
        <input
          id="composer-warning"
          value={warning}
          maxLength={MAX_CONTENT_WARNING_LENGTH}
          aria-describedby="composer-warning-hint"
          onInput={(e) => typeWarning(e.currentTarget.value)}
        />
        <p id="composer-warning-hint" class="hint">
          {t("feed.composer.warningHint")}
        </p>
      </div>
      <AttachmentList items={attachments.items} onRemove={attachments.remove} onAlt={attachments.setAlt} />
      {pollOn && (
        <fieldset class="poll-editor">
          <legend>{t("feed.poll.title")}</legend>
          <div class="field">
            <label for="poll-question">{t("feed.composer.question")}</label>
            <input
              id="poll-question"
              value={question}
              maxLength={300}
              onInput={(e) => setQuestion(e.currentTarget.value)}
            />
          </div>
          {options.map((o, i) => (
            <div class="field" key={i}>
              <label for={`poll-option-${i}`}>{t("feed.composer.choice", { n: i + 1 })}</label>
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
                {t("feed.composer.addChoice")}
              </button>
            )}
            <label class="choice">
              <input type="checkbox" checked={multiple} onChange={(e) => setMultiple(e.currentTarget.checked)} />{" "}
              {t("feed.composer.multiple")}
            </label>
          </div>
          {pollError && <p class="field-error">{pollError}</p>}
        </fieldset>
      )}
      <FormError message={error && !contentError && !pollError ? describeError(error) : null} />
      <div class="actions composer-actions">
        <AddFilesButton
          label={t("feed.composer.addImages")}
          accept="image/*,video/*"
          onPick={attachments.pick}
          disabled={attachments.full}
        />
        <button type="button" aria-pressed={pollOn} onClick={() => setPollOn(!pollOn)}>
          {t("feed.poll.title")}
        </button>
        <button type="submit" class="primary" disabled={busy || attachments.uploading || empty || over}>
          {t("feed.composer.post")}
        </button>
      </div>
    </form>
  );
}
