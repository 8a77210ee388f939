import { Elysia, t } from "elysia";
import type { App } from "../../app";
import { rateLimiter } from "../../cluster/counters";
import type { LinkPreview as LinkPreviewShape } from "../../domain/links/preview";
import { firstLink } from "../../lib/links";
import { requestContext } from "../../http/context";
import { ok } from "../../http/envelope";
import { pagePreviewOf } from "../../http/link-preview";
import { fieldError, rateLimited } from "../../lib/errors";
import { doc } from "../docs";
import { LinkPreview } from "../schemas";

// each answer may make the server read a page: a person's composer asks once per link typed
const PREVIEWS_PER_MINUTE = 30;

const PreviewQuery = t.Object({
  url: t.String({ minLength: 1, maxLength: 2048, description: "an http or https link, as typed in a composer" }),
});

/** /api/social/link-preview: the preview a composer shows before a post or message is sent. */
export function linkPreviewRoutes(app: App) {
  const limiter = rateLimiter(app, "link-preview");
  return new Elysia({ name: "client-link-preview" }).use(requestContext(app)).get(
    "",
    async ({ query, user }) => {
      const url = firstLink(query.url);
      if (url === null) throw fieldError("url", "must be an http or https link");
      const rate = await limiter.check(String(user.id), PREVIEWS_PER_MINUTE, 60_000, app.clock.now());
      if (!rate.allowed) throw rateLimited(rate.retryAfter);
      const preview = await pagePreviewOf(app, url);
      const linkPreview: LinkPreviewShape | null = preview && { url, ...preview };
      return ok({ linkPreview });
    },
    {
      auth: true,
      query: PreviewQuery,
      detail: doc(
        "The preview of a link as a post or message will show it: what its page says of itself, read by the server (public pages only), null when it gives nothing to show. A post or message gets it too without asking; send linkPreview: false to leave it out",
        { data: t.Object({ linkPreview: t.Union([LinkPreview, t.Null()]) }), errors: ["RATE_LIMITED"] },
      ),
    },
  );
}
