import { useEffect, useRef, useState } from "preact/hooks";
import { useLocation } from "preact-iso";
import { ReportButton } from "../../components/report";
import { Avatar } from "../../components/avatar";
import { Dialog } from "../../components/dialog";
import { FormError } from "../../components/field";
import { Loading, Page } from "../../components/page";
import { api, describeError } from "../../lib/api";
import { formatDateTime, formatNumber, formatRelative } from "../../lib/format";
import { account } from "../../lib/session";
import { storyViewerHref } from "../../lib/stories";
import type { Story, StoryGroup } from "../../lib/types";
import { StoryViewers } from "./story-viewers";
import { ResponsiveImage } from "../../components/media-image";
import { t } from "../../lib/i18n";

/** The story's slot: the whole width on a phone, the viewer's column (at most 480 px) on wider screens. */
const STORY_IMAGE_SIZES = "(max-width: 699.98px) 100vw, 480px";

/**
 * /stories/:username(?story=id): one person's stories, oldest first, starting at the first
 * unseen one. Tap the right or left half, the buttons, or the arrow keys to move; a video or
 * voice story moves on when it ends. After the last story the next followed account with
 * unseen stories follows; Escape closes. Each story shown is marked seen.
 */
export function StoryViewer({ username }: { username: string }) {
  const { query, route } = useLocation();
  const me = account.value!;
  const mine = me.username.toLowerCase() === username.toLowerCase();
  const [stories, setStories] = useState<Story[] | null>(null);
  const [index, setIndex] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [viewersOpen, setViewersOpen] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);

  useEffect(() => {
    setStories(null);
    setError(null);
    api
      .get<{ stories: Story[] }>(`/social/users/${encodeURIComponent(username)}/stories`)
      .then(({ stories: list }) => {
        const wanted = list.findIndex((s) => s.id === query.story);
        const unseen = list.findIndex((s) => !s.seen);
        setIndex(wanted >= 0 ? wanted : !mine && unseen >= 0 ? unseen : 0);
        setStories(list);
      })
      .catch((err) => setError(describeError(err)));
  }, [username]);

  const story = stories?.[index];

  // seen as soon as shown (own stories are not counted)
  useEffect(() => {
    if (!story || mine || story.seen) return;
    api
      .post<{ story: Story }>(`/social/stories/${story.id}/view`)
      .then(({ story: seen }) =>
        setStories((list) => list && list.map((s) => (s.id === seen.id ? { ...s, seen: true } : s))),
      )
      .catch(() => undefined /* being marked seen is best effort: the story is on screen either way */);
  }, [story?.id]);

  async function nextPerson() {
    try {
      const { groups } = await api.get<{ groups: StoryGroup[] }>("/social/stories");
      const next = groups.find((g) => g.hasUnseen && g.author.username.toLowerCase() !== username.toLowerCase());
      route(next ? storyViewerHref(next.author.username) : "/stories");
    } catch {
      route("/stories");
    }
  }
  const forward = () => (stories && index < stories.length - 1 ? setIndex(index + 1) : void nextPerson());
  const back = () => index > 0 && setIndex(index - 1);

  const keys = useRef({ forward, back, close: () => route("/stories") });
  keys.current = { forward, back, close: () => route("/stories") };
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      // keys typed into a field, or inside an open dialog, are not story navigation
      if (
        e.defaultPrevented ||
        e.altKey ||
        e.ctrlKey ||
        e.metaKey ||
        (e.target as HTMLElement).closest("input, textarea, select, dialog")
      )
        return;
      if (e.key === "ArrowRight") keys.current.forward();
      else if (e.key === "ArrowLeft") keys.current.back();
      else if (e.key === "Escape") keys.current.close();
      else return;
      e.preventDefault();
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);

  async function remove() {
    if (!story) return;
    try {
      await api.delete(`/social/stories/${story.id}`);
      setConfirmDelete(false);
      const rest = stories!.filter((s) => s.id !== story.id);
      if (!rest.length) return route("/stories");
      setStories(rest);
      setIndex(Math.min(index, rest.length - 1));
    } catch (err) {
      setConfirmDelete(false);
      setError(describeError(err));
    }
  }

  const author = story?.author;
  const name = author ? author.displayName || author.username : `@${username}`;
  return (
    <Page
      title={t("stories.viewer.title", { name })}
      heading={<span class="visually-hidden">{t("stories.viewer.title", { name })}</span>}
    >
      <div class="story-viewer">
        <FormError message={error} />
        {!stories && !error && <Loading label={t("stories.viewer.loading")} />}
        {stories && stories.length === 0 && (
          <p class="empty">
            {t("stories.viewer.none", { name })} <a href="/stories">{t("stories.viewer.back")}</a>
          </p>
        )}
        {story && author && (
          <>
            <div class="story-progress" aria-hidden="true">
              {stories!.map((s, i) => (
                <span key={s.id} class={i < index ? "done" : i === index ? "current" : ""} />
              ))}
            </div>
            <div class="story-head">
              <Avatar user={author} size={32} />
              <span class="story-who">
                <a href={`/users/${author.username}`}>{name}</a>
                <time class="muted" dateTime={story.createdAt} title={formatDateTime(story.createdAt)}>
                  {formatRelative(story.createdAt)}
                </time>
              </span>
              <p class="story-count" aria-live="polite">
                {t("stories.viewer.position", { n: formatNumber(index + 1), total: formatNumber(stories!.length) })}
              </p>
              <a class="button small" href="/stories">
                {t("common.close")}
              </a>
            </div>
            <div class="story-stage">
              <StoryMedia key={story.id} story={story} name={name} onEnded={forward} />
              <button type="button" class="story-tap story-tap-back" onClick={back} disabled={index === 0}>
                <span class="visually-hidden">{t("stories.viewer.previousStory")}</span>
              </button>
              <button type="button" class="story-tap story-tap-forward" onClick={forward}>
                <span class="visually-hidden">{t("stories.viewer.nextStory")}</span>
              </button>
            </div>
            {story.caption && <p class="story-caption">{story.caption}</p>}
            <div class="actions story-actions">
              <button type="button" onClick={back} disabled={index === 0}>
                {t("stories.viewer.previous")}
              </button>
              <button type="button" onClick={forward}>
                {t("stories.viewer.next")}
              </button>
              {!mine && (
                <ReportButton
                  target={{
                    type: "story",
                    id: story.id,
                    label: t("stories.viewer.reportTarget", { username: story.author.username }),
                  }}
                />
              )}
              {mine && (
                <>
                  <button type="button" onClick={() => setViewersOpen(true)}>
                    {t("stories.viewer.viewers", { n: formatNumber(story.viewsCount ?? 0) })}
                  </button>
                  <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
                    {t("stories.viewer.delete")}
                  </button>
                </>
              )}
            </div>
            <p class="hint">{t("stories.viewer.hint")}</p>
            {mine && <StoryViewers storyId={story.id} open={viewersOpen} onClose={() => setViewersOpen(false)} />}
            <Dialog
              open={confirmDelete}
              title={t("stories.viewer.deleteTitle")}
              onClose={() => setConfirmDelete(false)}
            >
              <p>{t("stories.viewer.deleteText")}</p>
              <div class="actions">
                <button type="button" class="primary danger-fill" onClick={() => void remove()}>
                  {t("common.delete")}
                </button>
                <button type="button" onClick={() => setConfirmDelete(false)}>
                  {t("feed.post.keep")}
                </button>
              </div>
            </Dialog>
          </>
        )}
      </div>
    </Page>
  );
}

function StoryMedia({ story, name, onEnded }: { story: Story; name: string; onEnded: () => void }) {
  const label = story.caption
    ? t("stories.viewer.labelCaption", { name, caption: story.caption })
    : t("stories.viewer.label", { name });
  if (story.mediaType === "video")
    return (
      <video
        class="story-media"
        src={story.mediaUrl}
        poster={story.thumbUrl ?? undefined}
        controls
        autoPlay
        muted
        playsInline
        onEnded={onEnded}
        aria-label={label}
      />
    );
  if (story.mediaType === "voice")
    return (
      <div class="story-media story-voice">
        <Avatar user={story.author} size={96} />
        <p>{t("stories.kind.voice")}</p>
        <audio src={story.mediaUrl} controls autoPlay onEnded={onEnded} aria-label={label} />
      </div>
    );
  // stories posted before display copies were kept show the original
  if (!story.renditions?.length) return <img class="story-media" src={story.mediaUrl} alt={label} />;
  return (
    <ResponsiveImage
      class="story-media"
      image={{
        url: story.mediaUrl,
        thumbUrl: story.thumbUrl,
        width: story.width,
        height: story.height,
        renditions: story.renditions,
      }}
      sizes={STORY_IMAGE_SIZES}
      fallbackAlt={label}
    />
  );
}
