import { memo } from "preact/compat";
import { useState } from "preact/hooks";
import { Avatar } from "../../components/avatar";
import { BookmarkIcon, HeartIcon, MessageSquareIcon, RepeatIcon } from "../../components/icon";
import { Dialog } from "../../components/dialog";
import { ReportButton } from "../../components/report";
import { AddFilesButton, AttachmentList, storedAttachment, useAttachments } from "../../components/attachments";
import { FormError } from "../../components/field";
import { describeError } from "../../lib/api";
import { useAction } from "../../lib/use-action";
import { formatCount, formatDateTime, formatRelative } from "../../lib/format";
import { account } from "../../lib/session";
import type { Post } from "../../lib/types";
import { PollView } from "./poll-view";
import { deletePost, editPost, shown, withShown, toggleBookmark, toggleLike, toggleRepost } from "./post-store";
import { RichText } from "./rich-text";
import { LinkPreviewCard } from "../../components/link-preview";
import { MAX_CONTENT_WARNING_LENGTH, MAX_POST_IMAGES, MAX_POST_LENGTH, postUploadKind } from "./composer";
import { POST_IMAGE_SIZES } from "../../components/media-image";
import { useMediaViewer, ViewableImage } from "../../components/media-viewer";
import type { ComponentChildren } from "preact";
import { t } from "../../lib/i18n";
import { Sentence } from "../../components/sentence";

/** One post in a list or on its own page, with its actions. ONCHANGE gets the new state; ONDELETED runs after a delete. */
export const PostCard = memo(function PostCard({
  post: outer,
  onChange,
  onDeleted,
  headingLevel = 2,
}: {
  post: Post;
  onChange: (p: Post) => void;
  onDeleted: (p: Post) => void;
  headingLevel?: 2 | 3;
}) {
  const post = shown(outer);
  const me = account.value;
  const mine = me?.id === post.author.id;
  // an administrator may remove anyone's post from where they see it, not only from /admin
  const moderating = !mine && Boolean(me?.isAdmin);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [busy, setBusy] = useState(false);
  const H = headingLevel === 2 ? "h2" : "h3";

  // a repost card shows the original; actions apply to the original, and the new state replaces it inside the repost
  const update = (next: Post) => onChange(withShown(outer, next));

  async function act(action: (p: Post) => Promise<Post>) {
    setError(null);
    try {
      update(await action(post));
    } catch (err) {
      setError(describeError(err));
    }
  }

  async function remove() {
    setBusy(true);
    try {
      await deletePost(post, moderating);
      setConfirmDelete(false);
      onDeleted(outer);
    } catch (err) {
      setError(describeError(err));
      setConfirmDelete(false);
    } finally {
      setBusy(false);
    }
  }

  const name = post.author.displayName || post.author.username;
  return (
    <article class="post card" aria-labelledby={`post-${outer.id}-author`}>
      {outer.isRepost && (
        <p class="repost-note">
          <Sentence
            text={t("feed.post.repostedBy")}
            parts={{ user: <a href={`/users/${outer.author.username}`}>@{outer.author.username}</a> }}
          />
        </p>
      )}
      <header class="post-head">
        <Avatar user={post.author} />
        <div class="post-meta">
          <H class="post-author" id={`post-${outer.id}-author`}>
            <a href={`/users/${post.author.username}`}>{name}</a> <span class="muted">@{post.author.username}</span>
          </H>
          <a class="muted post-time" href={`/posts/${post.id}`}>
            <time dateTime={post.createdAt} title={formatDateTime(post.createdAt)}>
              {formatRelative(post.createdAt)}
            </time>
            {post.editedAt && ` · ${t("feed.post.edited")}`}
          </a>
        </div>
      </header>
      {editing ? (
        <PostEditForm
          post={post}
          onSaved={(next) => (update(next), setEditing(false))}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <Warned warning={post.contentWarning} id={`post-${outer.id}-body`}>
          {post.content && <RichText text={post.content} />}
          {post.linkPreview && <LinkPreviewCard preview={post.linkPreview} />}
          {post.images.length > 0 && <PostMedia post={post} />}
        </Warned>
      )}
      {post.poll && <PollView post={post} onChange={update} />}
      <FormError message={error} />
      <footer class="post-actions">
        <button type="button" class="post-action fills" aria-pressed={post.liked} onClick={() => act(toggleLike)}>
          <HeartIcon size={18} />{" "}
          <span class="visually-hidden">{post.liked ? t("feed.post.liked") : t("feed.post.like")}</span>{" "}
          <span class="count">{formatCount(post.likeCount)}</span>
        </button>
        <a href={`/posts/${post.id}`} class="button post-action">
          <MessageSquareIcon size={18} /> <span class="visually-hidden">{t("feed.post.comments")}</span>{" "}
          <span class="count">{formatCount(post.commentCount)}</span>
        </a>
        <button type="button" class="post-action" aria-pressed={post.reposted} onClick={() => act(toggleRepost)}>
          <RepeatIcon size={18} />{" "}
          <span class="visually-hidden">{post.reposted ? t("feed.post.reposted") : t("feed.post.repost")}</span>{" "}
          <span class="count">{formatCount(post.repostCount)}</span>
        </button>
        <button
          type="button"
          class="post-action fills"
          aria-pressed={post.bookmarked}
          aria-label={post.bookmarked ? t("feed.post.bookmarked") : t("feed.post.bookmark")}
          onClick={() => act(toggleBookmark)}
        >
          <BookmarkIcon size={18} />
        </button>
        {mine && !editing && (
          <>
            <button type="button" onClick={() => setEditing(true)}>
              {t("common.edit")}
            </button>
            <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
              {t("common.delete")}
            </button>
          </>
        )}
        {moderating && (
          <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
            {t("common.remove")}
          </button>
        )}
        {!mine && (
          <ReportButton
            target={{
              type: "post",
              id: post.id,
              label: t("feed.post.reportTarget", { username: post.author.username }),
            }}
          />
        )}
      </footer>
      {confirmDelete && (
        <Dialog
          open
          title={
            moderating ? t("feed.post.removeTitle", { username: post.author.username }) : t("feed.post.deleteTitle")
          }
          onClose={() => setConfirmDelete(false)}
        >
          <p>
            {t("feed.post.deleteText")}
            {moderating && ` ${t("feed.post.removeText")}`}
          </p>
          <div class="actions">
            <button type="button" class="danger" disabled={busy} onClick={remove}>
              {moderating ? t("feed.post.remove") : t("feed.post.delete")}
            </button>
            <button type="button" onClick={() => setConfirmDelete(false)} autoFocus>
              {t("feed.post.keep")}
            </button>
          </div>
        </Dialog>
      )}
    </article>
  );
});

/**
 * CHILDREN behind a content warning: collapsed under the warning with a Show button (and Hide
 * once shown); without a warning, shown as they are.
 */
export function Warned({ warning, id, children }: { warning: string | null; id: string; children: ComponentChildren }) {
  const [open, setOpen] = useState(false);
  if (!warning) return <>{children}</>;
  return (
    <>
      <p class="content-warning">
        <strong>{t("feed.post.warning")}</strong> <span>{warning}</span>
        <button type="button" class="small" aria-expanded={open} aria-controls={id} onClick={() => setOpen(!open)}>
          {open ? t("feed.post.hide") : t("feed.post.show")}
        </button>
      </p>
      <div id={id} hidden={!open}>
        {open && children}
      </div>
    </>
  );
}

/** A post's images (opening the viewer), videos and files. */
function PostMedia({ post }: { post: Post }) {
  const pictures = post.images.filter((i) => i.mime?.startsWith("image/"));
  const name = `@${post.author.username}`;
  const { open, viewer } = useMediaViewer(pictures, t("feed.post.images", { name }));
  return (
    <div class={`post-media count-${Math.min(post.images.length, 4)}`}>
      {post.images.map((img) => {
        if (img.mime?.startsWith("video/"))
          return <video key={img.url} src={img.url} poster={img.posterUrl ?? undefined} controls preload="none" />;
        if (!img.mime?.startsWith("image/"))
          return (
            <a key={img.url} href={img.url} download>
              {t("feed.post.download")}
            </a>
          );
        const n = pictures.indexOf(img);
        return (
          <ViewableImage
            key={img.url}
            image={img}
            sizes={POST_IMAGE_SIZES}
            fallbackAlt={t("feed.post.noAlt", { n: n + 1, total: pictures.length, name })}
            onOpen={() => open(n)}
          />
        );
      })}
      {viewer}
    </div>
  );
}

/** Editing one's own post: its text, and its images and videos (keep, remove, add more). */
function PostEditForm({ post, onSaved, onCancel }: { post: Post; onSaved: (p: Post) => void; onCancel: () => void }) {
  const [draft, setDraft] = useState(post.content);
  const [warning, setWarning] = useState(post.contentWarning ?? "");
  const attachments = useAttachments(
    postUploadKind,
    MAX_POST_IMAGES,
    post.images.map((i, n) =>
      i.mime?.startsWith("image/")
        ? storedAttachment(i.url, i.thumbUrl ?? i.url, `image ${n + 1}`, { alt: i.alt ?? "" })
        : storedAttachment(i.url, i.posterUrl, `${i.mime?.startsWith("video/") ? "video" : "file"} ${n + 1}`),
    ),
  );
  const { busy, error, run } = useAction();
  const save = run(async () =>
    onSaved(
      await editPost(post, {
        content: draft,
        contentWarning: warning.trim() || null,
        imageUrls: attachments.urls,
        imageAlts: attachments.alts,
      }),
    ),
  );
  return (
    <form class="form" onSubmit={save}>
      <label for={`edit-${post.id}`}>{t("feed.post.editLabel")}</label>
      <textarea
        id={`edit-${post.id}`}
        value={draft}
        maxLength={MAX_POST_LENGTH}
        rows={4}
        onInput={(e) => setDraft(e.currentTarget.value)}
      />
      <label for={`edit-${post.id}-warning`}>{t("feed.composer.warning")}</label>
      <input
        id={`edit-${post.id}-warning`}
        value={warning}
        maxLength={MAX_CONTENT_WARNING_LENGTH}
        onInput={(e) => setWarning(e.currentTarget.value)}
      />
      <AttachmentList items={attachments.items} onRemove={attachments.remove} onAlt={attachments.setAlt} />
      <FormError message={error ? describeError(error) : null} />
      <div class="actions">
        <AddFilesButton
          label={t("feed.composer.addImages")}
          accept="image/*,video/*"
          onPick={attachments.pick}
          disabled={attachments.full}
        />
        <button type="submit" class="primary" disabled={busy || attachments.uploading}>
          {t("common.save")}
        </button>
        <button type="button" onClick={onCancel}>
          {t("common.cancel")}
        </button>
      </div>
    </form>
  );
}
