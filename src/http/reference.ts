import { Elysia } from "elysia";
import { notFound } from "../lib/errors";
import { renderReferencePage, REFERENCE_SCRIPT, REFERENCE_STYLE, type OpenApiDocument } from "./reference-page";
import { respondWithFile, staticFile, type StaticFile } from "./web-app";

/*
 * The reference the instance serves about itself: the OpenAPI documents of the Client API
 * (/api/openapi.json, made from its routes) and of the Bot API (/api/bot-openapi.json, made from
 * the method table), each also as a page (/api/docs, /api/bot-docs) rendered on the server from
 * the same document (reference-page.ts), so the pages work offline and draw at once. Documents
 * and pages are made on first request only. The documents come from the composition root
 * (src/wiring.ts), which knows both surfaces.
 */

/** The pages run only the instance's own script and style. */
const PAGE_HEADERS = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; "),
  "referrer-policy": "same-origin",
  "cache-control": "no-cache",
};

const encoder = new TextEncoder();
const textFile = (text: string, contentType: string) => staticFile(encoder.encode(text), contentType);

/**
 * /api/openapi.json, /api/bot-openapi.json, their pages /api/docs and /api/bot-docs, and the pages'
 * style and script under /api/docs/. MAKE builds each document on its first request (its builder
 * may be imported only then).
 */
export function referenceRoutes(make: { client: () => Promise<object>; bot: () => Promise<object> }) {
  /** BUILD's result, made on first use; a failure is not kept, so the next request tries again. */
  const memo = <T>(build: () => Promise<T>) => {
    let made: Promise<T> | null = null;
    return () =>
      (made ??= build().catch((err) => {
        made = null;
        throw err;
      }));
  };
  const clientDoc = memo(make.client);
  const botDoc = memo(make.bot);
  const json = (doc: () => Promise<object>) =>
    memo(async () => textFile(JSON.stringify(await doc()), "application/json; charset=utf-8"));
  const html = (doc: () => Promise<object>, documentUrl: string) =>
    memo(async () =>
      textFile(
        renderReferencePage((await doc()) as OpenApiDocument, {
          stylesheet: "/api/docs/reference.css",
          script: "/api/docs/reference.js",
          documentUrl,
        }),
        "text/html; charset=utf-8",
      ),
    );
  const clientDocument = json(clientDoc);
  const botDocument = json(botDoc);
  const clientPage = html(clientDoc, "/api/openapi.json");
  const botPage = html(botDoc, "/api/bot-openapi.json");
  const assets = new Map<string, StaticFile>([
    ["reference.css", textFile(REFERENCE_STYLE, "text/css; charset=utf-8")],
    ["reference.js", textFile(REFERENCE_SCRIPT, "text/javascript; charset=utf-8")],
  ]);

  const hidden = { detail: { hide: true } };
  const noCache = { "cache-control": "no-cache" };
  return new Elysia({ name: "reference", prefix: "/api" })
    .get("/openapi.json", async ({ request }) => respondWithFile(request, await clientDocument(), noCache), hidden)
    .get("/bot-openapi.json", async ({ request }) => respondWithFile(request, await botDocument(), noCache), hidden)
    .get("/docs", async ({ request }) => respondWithFile(request, await clientPage(), PAGE_HEADERS), hidden)
    .get("/bot-docs", async ({ request }) => respondWithFile(request, await botPage(), PAGE_HEADERS), hidden)
    .get(
      "/docs/:file",
      ({ request, params }) => {
        const asset = assets.get(params.file);
        if (!asset) throw notFound();
        // the style and script change only with the binary: revalidated, not refetched
        return respondWithFile(request, asset, noCache);
      },
      hidden,
    );
}
