import { useEffect, useState } from "preact/hooks";
import { api, describeError } from "../lib/api";
import { onRealtime } from "../lib/realtime";
import { storyViewerHref } from "../lib/stories";
import type { StoryGroup } from "../lib/types";
import { Avatar } from "./avatar";
import { FormError } from "./field";
import { t } from "../lib/i18n";

/**
 * The row of followed accounts with stories of the last day, unseen first; each opens the
 * story viewer. Follows `story:new`, so a story posted meanwhile appears without a reload.
 * Meant for the top of the feed as well as the stories screen; TITLE is its heading (an h2).
 */
export function StoryRow({ addLink = true, title }: { addLink?: boolean; title?: string }) {
  const [groups, setGroups] = useState<StoryGroup[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const load = () =>
      api
        .get<{ groups: StoryGroup[] }>("/social/stories")
        .then((r) => live && (setGroups(r.groups), setError(null)))
        .catch((err) => live && setError(describeError(err)));
    void load();
    const offNew = onRealtime("story:new", () => void load());
    const offReset = onRealtime("stream:reset", () => void load());
    return () => ((live = false), offNew(), offReset());
  }, []);
  return (
    <section class="story-row card" aria-labelledby="story-row-title">
      <h2 id="story-row-title" class="story-row-title">
        {title ?? t("nav.stories")}
      </h2>
      <FormError message={error} />
      <ul class="story-chips">
        {addLink && (
          <li>
            <a class="story-chip story-add" href="/stories#new-story">
              <span class="story-ring" aria-hidden="true">
                <span class="story-plus">+</span>
              </span>
              <span class="story-name">
                {t("stories.row.add")}
                <span class="visually-hidden"> {t("stories.row.addRest")}</span>
              </span>
            </a>
          </li>
        )}
        {groups?.map((g) => {
          const name = g.author.displayName || g.author.username;
          return (
            <li key={g.author.id}>
              <a class={g.hasUnseen ? "story-chip unseen" : "story-chip"} href={storyViewerHref(g.author.username)}>
                <span class="story-ring" aria-hidden="true">
                  <Avatar user={g.author} size={56} />
                </span>
                <span class="story-name">
                  {name}
                  {g.hasUnseen && <span class="visually-hidden">{t("stories.row.unseen")}</span>}
                </span>
              </a>
            </li>
          );
        })}
      </ul>
      {groups && groups.length === 0 && <p class="hint">{t("stories.row.empty")}</p>}
    </section>
  );
}
