import { useCallback, useState } from "preact/hooks";
import { ReportButton } from "../../components/report";
import { AddFilesButton, AttachmentList, useAttachments } from "../../components/attachments";
import { Avatar } from "../../components/avatar";
import { ComposerInput } from "../../components/composer-input";
import { FormError } from "../../components/field";
import { Loading } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { formatCount, formatDateTime, formatRelative } from "../../lib/format";
import { usePagedList } from "../../lib/paged";
import { account } from "../../lib/session";
import type { Comment, PageInfo } from "../../lib/types";
import { RichText } from "./rich-text";
import { Warned } from "./post-card";
import { MAX_CONTENT_WARNING_LENGTH } from "./composer";
import { SMALL_IMAGE_SIZES } from "../../components/media-image";
import { useMediaViewer, ViewableImage } from "../../components/media-viewer";
import { t } from "../../lib/i18n";

/** As the server allows per comment (MAX_COMMENT_MEDIA). */
const MAX_COMMENT_MEDIA = 4;
const commentUploadKind = (file: File) =>
  file.type.startsWith("video/") ? "comment-video" : file.type.startsWith("audio/") ? "comment-voice" : "comment-image";

/** Writing a comment or a reply: text, and up to four images, videos or voice recordings. */
function CommentForm({
  postId,
  replyTo,
  onPosted,
  label,
}: {
  postId: string;
  replyTo?: Comment;
  onPosted: (c: Comment) => void;
  label: string;
}) {
  const [content, setContent] = useState("");
  const [warning, setWarning] = useState("");
  const attachments = useAttachments(commentUploadKind, MAX_COMMENT_MEDIA);
  const { busy, error, apiError, run } = useAction();
  const id = `comment-${replyTo?.id ?? "new"}`;
  const submit = run(async () => {
    const { comment } = await api.post<{ comment: Comment }>(`/social/posts/${postId}/comments`, {
      content,
      ...(warning.trim() ? { contentWarning: warning.trim() } : {}),
      ...(attachments.urls.length
        ? {
            media: attachments.urls.map((url, i) => ({
              url,
              ...(attachments.alts[i] ? { alt: attachments.alts[i] } : {}),
            })),
          }
        : {}),
      ...(replyTo ? { replyToId: replyTo.id } : {}),
    });
    setContent("");
    setWarning("");
    attachments.reset();
    onPosted(comment);
  });
  const mediaError = apiError && Object.entries(apiError.fieldErrors).find(([f]) => f.startsWith("media"))?.[1][0];
  const fieldError = apiError?.field("content");
  const warningError = apiError?.field("contentWarning");
  return (
    <form class="form comment-form" onSubmit={submit}>
      <div class="field">
        <label for={id}>{label}</label>
        <ComposerInput id={id} rows={2} maxLength={2000} value={content} onValue={setContent} />
        {fieldError && <p class="field-error">{fieldError}</p>}
      </div>
      <div class="field">
        <label for={`${id}-warning`}>{t("feed.composer.warning")}</label>
        <input
          id={`${id}-warning`}
          value={warning}
          maxLength={MAX_CONTENT_WARNING_LENGTH}
          aria-describedby={`${id}-warning-hint`}
          onInput={(e) => setWarning(e.currentTarget.value)}
        />
        <p id={`${id}-warning-hint`} class="hint">
          {replyTo ? t("feed.comments.warningHintReply") : t("feed.comments.warningHint")}
        </p>
        {warningError && <p class="field-error">{warningError}</p>}
      </div>
      <AttachmentList items={attachments.items} onRemove={attachments.remove} onAlt={attachments.setAlt} />
      {mediaError && <p class="field-error">{mediaError}</p>}
      <FormError message={error && !fieldError && !warningError && !mediaError ? describeError(error) : null} />
      <div class="actions">
        <AddFilesButton
          label={replyTo ? t("feed.comments.attachReply") : t("feed.comments.attach")}
          accept="image/*,video/*,audio/*"
          onPick={attachments.pick}
          disabled={attachments.full}
        />
        <button
          type="submit"
          class="primary"
          disabled={busy || attachments.uploading || (!content.trim() && attachments.urls.length === 0)}
        >
          {replyTo ? t("feed.comments.reply") : t("feed.comments.comment")}
        </button>
      </div>
    </form>
  );
}

/** One comment, its likes, replies (a thread, loaded on demand) and a reply form. */
function CommentItem({
  comment,
  postId,
  postAuthorId,
  onChange,
  onDeleted,
}: {
  comment: Comment;
  postId: string;
  postAuthorId: string;
  onChange: (c: Comment) => void;
  onDeleted: (c: Comment) => void;
}) {
  const me = account.value;
  const [replying, setReplying] = useState(false);
  const [open, setOpen] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const loadReplies = useCallback(
    async (cursor: string | null) => {
      const r = await api.get<{ comments: Comment[]; pageInfo: PageInfo }>(`/social/comments/${comment.id}/replies`, {
        cursor,
      });
      return { items: r.comments, nextCursor: r.pageInfo.nextCursor };
    },
    [comment.id],
  );
  const name = comment.author.displayName || comment.author.username;
  const mayDelete = me?.id === comment.author.id || me?.id === postAuthorId;
  // an administrator removes anyone else's comment through the admin API, which logs it
  const moderating = !mayDelete && Boolean(me?.isAdmin);

  async function like() {
    try {
      const r = await api.post<{ liked: boolean; likeCount: number }>(`/social/comments/${comment.id}/like`);
      onChange({ ...comment, liked: r.liked, likeCount: r.likeCount });
    } catch (err) {
      setError(describeError(err));
    }
  }
  async function remove() {
    try {
      await api.delete(moderating ? `/admin/content/comments/${comment.id}` : `/social/comments/${comment.id}`);
      onDeleted(comment);
    } catch (err) {
      setError(describeError(err));
    }
  }
  return (
    <li class="comment">
      <article aria-label={t("feed.comments.by", { name })}>
        <header class="post-head">
          <Avatar user={comment.author} size={32} />
          <div class="post-meta">
            <a href={`/users/${comment.author.username}`}>{name}</a>{" "}
            <time class="muted" dateTime={comment.createdAt} title={formatDateTime(comment.createdAt)}>
              {formatRelative(comment.createdAt)}
            </time>
          </div>
        </header>
        <Warned warning={comment.contentWarning} id={`comment-${comment.id}-body`}>
          {comment.content && <RichText text={comment.content} />}
          <CommentMedia media={comment.media} author={name} />
        </Warned>
        <FormError message={error} />
        <div class="post-actions">
          <button type="button" class="small" aria-pressed={comment.liked} onClick={like}>
            {comment.liked ? t("feed.post.liked") : t("feed.post.like")}{" "}
            <span class="count">{formatCount(comment.likeCount)}</span>
          </button>
          <button type="button" class="small" aria-expanded={replying} onClick={() => setReplying(!replying)}>
            {t("feed.comments.reply")}
          </button>
          {(mayDelete || moderating) && (
            <button type="button" class="small danger" onClick={remove}>
              {moderating ? t("feed.comments.remove") : t("feed.comments.delete")}
            </button>
          )}
          {me?.id !== comment.author.id && (
            <ReportButton
              class="small"
              target={{
                type: "comment",
                id: comment.id,
                label: t("feed.comments.reportTarget", { username: comment.author.username }),
              }}
            />
          )}
        </div>
      </article>
      {replying && (
        <CommentForm
          postId={postId}
          replyTo={comment}
          label={t("feed.comments.replyTo", { name })}
          onPosted={() => {
            setReplying(false);
            setOpen(true);
            onChange({ ...comment, replyCount: comment.replyCount + 1 });
          }}
        />
      )}
      {comment.replyCount > 0 && (
        <button type="button" class="small link-like" aria-expanded={open} onClick={() => setOpen(!open)}>
          {open ? t("feed.comments.hideReplies") : t("feed.comments.showReplies", { count: comment.replyCount })}
        </button>
      )}
      {open && (
        <Replies
          load={loadReplies}
          keyId={`${comment.id}:${comment.replyCount}`}
          postId={postId}
          postAuthorId={postAuthorId}
        />
      )}
    </li>
  );
}

/** A comment's images (opening the viewer), videos and voice recordings. */
function CommentMedia({ media, author }: { media: Comment["media"]; author: string }) {
  const pictures = media.filter((m) => m.type === "image");
  const { open, viewer } = useMediaViewer(pictures, t("feed.comments.images", { name: author }));
  if (media.length === 0) return null;
  return (
    <div class="post-media comment-media">
      {media.map((m) =>
        m.type === "video" ? (
          <video key={m.url} src={m.url} poster={m.posterUrl ?? undefined} controls preload="none" />
        ) : m.type === "voice" ? (
          <audio
            key={m.url}
            src={m.url}
            controls
            preload="none"
            aria-label={t("feed.comments.voice", { name: author })}
          />
        ) : (
          <ViewableImage
            key={m.url}
            image={m}
            sizes={SMALL_IMAGE_SIZES}
            fallbackAlt={t("feed.comments.noAlt", { name: author })}
            onOpen={() => open(pictures.indexOf(m))}
          />
        ),
      )}
      {viewer}
    </div>
  );
}

function Replies({
  load,
  keyId,
  postId,
  postAuthorId,
}: {
  load: (c: string | null) => Promise<{ items: Comment[]; nextCursor: string | null }>;
  keyId: string;
  postId: string;
  postAuthorId: string;
}) {
  const list = usePagedList<Comment>(keyId, load);
  return <CommentTree list={list} postId={postId} postAuthorId={postAuthorId} label={t("feed.comments.replies")} />;
}

function CommentTree({
  list,
  postId,
  postAuthorId,
  label,
}: {
  list: ReturnType<typeof usePagedList<Comment>>;
  postId: string;
  postAuthorId: string;
  label: string;
}) {
  const replace = (c: Comment) => list.setItems((items) => items.map((x) => (x.id === c.id ? c : x)));
  const drop = (c: Comment) => list.setItems((items) => items.filter((x) => x.id !== c.id));
  return (
    <>
      <ul class="comments" aria-label={label}>
        {list.items.map((c) => (
          <CommentItem
            key={c.id}
            comment={c}
            postId={postId}
            postAuthorId={postAuthorId}
            onChange={replace}
            onDeleted={drop}
          />
        ))}
      </ul>
      {list.loading && <Loading label={t("feed.comments.loading")} />}
      <FormError message={list.error} />
      {!list.done && !list.loading && (
        <button type="button" class="small" onClick={list.more}>
          {t("feed.comments.more")}
        </button>
      )}
    </>
  );
}

/** A post's comments, oldest first, with a form to add one. */
export function Comments({
  postId,
  postAuthorId,
  onCount,
}: {
  postId: string;
  postAuthorId: string;
  onCount: (delta: number) => void;
}) {
  const load = useCallback(
    async (cursor: string | null) => {
      const r = await api.get<{ comments: Comment[]; pageInfo: PageInfo }>(`/social/posts/${postId}/comments`, {
        cursor,
      });
      return { items: r.comments, nextCursor: r.pageInfo.nextCursor };
    },
    [postId],
  );
  const list = usePagedList<Comment>(postId, load);
  return (
    <section class="card" aria-labelledby="comments-title">
      <h2 id="comments-title">{t("feed.post.comments")}</h2>
      <CommentForm
        postId={postId}
        label={t("feed.comments.write")}
        onPosted={(c) => {
          list.setItems((items) => [...items, c]);
          onCount(1);
        }}
      />
      {list.done && list.items.length === 0 && <p class="empty">{t("feed.comments.empty")}</p>}
      <CommentTree list={list} postId={postId} postAuthorId={postAuthorId} label={t("feed.post.comments")} />
    </section>
  );
}
