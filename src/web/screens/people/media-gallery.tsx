import { useCallback } from "preact/hooks";
import { ListFooter } from "../../components/list-footer";
import { ResponsiveImage, type ShownImage } from "../../components/media-image";
import { useMediaViewer } from "../../components/media-viewer";
import { api } from "../../lib/api";
import { usePagedList } from "../../lib/paged";
import type { PageInfo, Post } from "../../lib/types";
import { t } from "../../lib/i18n";

/** A gallery tile: a third of a phone's width, a third of the profile's column on wider screens. */
const TILE_SIZES = "(max-width: 699.98px) 34vw, 200px";

interface Tile {
  image: ShownImage;
  /** the post's content warning: the tile shows it instead of the picture */
  warning: string | null;
}

/** The pictures of POSTS, in the posts' order, each with its post's warning. */
export const tilesOf = (posts: Post[]): Tile[] =>
  posts.flatMap((p) =>
    p.images.filter((i) => i.mime?.startsWith("image/")).map((image) => ({ image, warning: p.contentWarning })),
  );

/**
 * A profile's media gallery: the pictures of the person's own posts, newest first, paged as the
 * end comes into view; a tile opens the image viewer, which moves through every picture loaded.
 * A picture of a post with a content warning shows the warning until opened.
 */
export function MediaGallery({ username, name }: { username: string; name: string }) {
  const load = useCallback(
    async (cursor: string | null) => {
      const r = await api.get<{ posts: Post[]; pageInfo: PageInfo }>(
        `/social/users/${encodeURIComponent(username)}/media`,
        { cursor },
      );
      return { items: r.posts, nextCursor: r.pageInfo.nextCursor };
    },
    [username],
  );
  const list = usePagedList<Post>(`media:${username}`, load);
  const tiles = tilesOf(list.items);
  const { open, viewer } = useMediaViewer(
    tiles.map((t) => t.image),
    t("people.gallery.label", { name }),
  );
  return (
    <div class="media-gallery">
      {tiles.length > 0 && (
        <ul class="media-grid" aria-label={t("people.gallery.label", { name })}>
          {tiles.map((tile, n) => (
            <li key={tile.image.url}>
              <button
                type="button"
                class="media-open"
                aria-haspopup="dialog"
                aria-label={tile.warning ? t("people.gallery.warned", { warning: tile.warning, n: n + 1 }) : undefined}
                onClick={() => open(n)}
              >
                {tile.warning ? (
                  <span class="media-warned" aria-hidden="true">
                    {tile.warning}
                  </span>
                ) : (
                  <ResponsiveImage
                    image={tile.image}
                    sizes={TILE_SIZES}
                    fallbackAlt={t("people.gallery.noAlt", { n: n + 1, name })}
                    loading="lazy"
                  />
                )}
              </button>
            </li>
          ))}
        </ul>
      )}
      <ListFooter list={list} noun={t("people.gallery.noun")} empty={t("people.gallery.empty", { name })} />
      {viewer}
    </div>
  );
}
