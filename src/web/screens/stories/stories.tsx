import { useCallback, useEffect, useState } from "preact/hooks";
import { FormError } from "../../components/field";
import { Loading, Page } from "../../components/page";
import { StoryRow } from "../../components/story-row";
import { api, describeError } from "../../lib/api";
import { formatRelative } from "../../lib/format";
import { account } from "../../lib/session";
import { storyViewerHref } from "../../lib/stories";
import type { Story } from "../../lib/types";
import { NewStory } from "./new-story";
import { t } from "../../lib/i18n";

/** /stories: followed accounts' stories, my own with their view counts, and a new one. */
export function Stories() {
  const me = account.value!;
  const [mine, setMine] = useState<Story[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const loadMine = useCallback(
    () =>
      api
        .get<{ stories: Story[] }>(`/social/users/${encodeURIComponent(me.username)}/stories`)
        .then((r) => (setMine(r.stories), setError(null)))
        .catch((err) => setError(describeError(err))),
    [me.username],
  );
  useEffect(() => void loadMine(), [loadMine]);
  return (
    <Page title={t("nav.stories")}>
      <StoryRow addLink={false} title={t("stories.list.following")} />
      <section class="card story-mine" aria-labelledby="my-stories-title">
        <h2 id="my-stories-title">{t("stories.list.mine")}</h2>
        <p class="hint">{t("stories.list.hint")}</p>
        {!mine && !error && <Loading />}
        <FormError message={error} />
        {mine && mine.length === 0 && <p class="muted">{t("stories.list.none")}</p>}
        {mine && mine.length > 0 && (
          <ul class="my-story-list">
            {mine.map((s) => {
              const n = s.viewsCount ?? 0;
              return (
                <li key={s.id}>
                  <a href={storyViewerHref(me.username, s.id)} class="my-story">
                    {s.thumbUrl ? (
                      <img src={s.thumbUrl} alt="" width={48} height={48} loading="lazy" />
                    ) : (
                      <span class="my-story-icon" aria-hidden="true">
                        {s.mediaType === "voice" ? "♪" : "▶"}
                      </span>
                    )}
                    <span>
                      {s.caption ||
                        (s.mediaType === "voice"
                          ? t("stories.kind.voice")
                          : s.mediaType === "video"
                            ? t("stories.kind.video")
                            : t("stories.kind.photo"))}
                      <span class="muted">
                        {" "}
                        · {formatRelative(s.createdAt)} · {t("stories.list.views", { count: n })}
                      </span>
                    </span>
                  </a>
                </li>
              );
            })}
          </ul>
        )}
      </section>
      <NewStory onPosted={() => void loadMine()} />
    </Page>
  );
}
