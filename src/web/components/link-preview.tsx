import { useEffect, useMemo, useState } from "preact/hooks";
import { api } from "../lib/api";
import { firstLink } from "../../lib/links";
import type { LinkPreview } from "../lib/types";
import { t } from "../lib/i18n";

/** How long typing must pause before the composer asks for the link's preview. */
const PREVIEW_DELAY_MS = 400;

/**
 * The preview card of a link as posts and messages show it: site, title and description,
 * linking to the page. The page's image is left out: the app's Content-Security-Policy loads
 * images from this instance only, so a reader's browser never contacts the linked site.
 */
export function LinkPreviewCard({ preview }: { preview: LinkPreview }) {
  const host = (() => {
    try {
      return new URL(preview.url).hostname;
    } catch {
      return preview.url;
    }
  })();
  return (
    <a class="link-preview" href={preview.url} target="_blank" rel="noopener noreferrer nofollow ugc">
      <span class="link-preview-site">{preview.siteName ?? host}</span>
      {preview.title && <strong class="link-preview-title">{preview.title}</strong>}
      {preview.description && <span class="link-preview-description">{preview.description}</span>}
    </a>
  );
}

/**
 * The preview of TEXT's first link while it is being written: asked for once typing pauses,
 * and removable. `request` is what the send adds to its body (`linkPreview: false` once
 * removed); `reset` forgets the removal for the next text.
 */
export function useLinkPreview(text: string) {
  const link = useMemo(() => firstLink(text), [text]);
  const [removed, setRemoved] = useState<string | null>(null);
  const [fetched, setFetched] = useState<{ url: string; preview: LinkPreview | null } | null>(null);
  useEffect(() => {
    if (!link || link === removed || fetched?.url === link) return;
    const abort = new AbortController();
    const timer = setTimeout(() => {
      api
        .get<{ linkPreview: LinkPreview | null }>("/social/link-preview", { url: link }, abort.signal)
        .then(({ linkPreview }) => setFetched({ url: link, preview: linkPreview }))
        // no card is the quiet answer to anything that went wrong: the server makes the preview anyway
        .catch(() => undefined);
    }, PREVIEW_DELAY_MS);
    return () => {
      clearTimeout(timer);
      abort.abort();
    };
  }, [link, removed]);
  const isRemoved = link !== null && link === removed;
  return {
    preview: !isRemoved && fetched && fetched.url === link ? fetched.preview : null,
    request: isRemoved ? { linkPreview: false } : {},
    remove: () => setRemoved(link),
    reset: () => setRemoved(null),
  };
}

/** A composer's card of the link being written, with the button that leaves it out of the send. */
export function ComposerLinkPreview({ state }: { state: ReturnType<typeof useLinkPreview> }) {
  if (!state.preview) return null;
  return (
    <section class="composer-link-preview" aria-label={t("common.media.linkPreview")}>
      <LinkPreviewCard preview={state.preview} />
      <button type="button" class="small" onClick={state.remove}>
        {t("common.media.removePreview")}
      </button>
    </section>
  );
}
