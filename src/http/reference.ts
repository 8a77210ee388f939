import { Elysia } from "elysia";
import swaggerScript from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerStyle from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import { notFound } from "../lib/errors";
import { respondWithFile, staticFile, type StaticFile } from "./web-app";

/*
 * The reference the instance serves about itself: the OpenAPI documents of the Client API
 * (/api/openapi.json, made from its routes) and of the Bot API (/api/bot-openapi.json, made from
 * the method table), each rendered by Swagger UI (/api/docs, /api/bot-docs). Swagger UI's files
 * come from the npm package and are embedded in the compiled binary (`with { type: "file" }`),
 * so the pages work offline; they are read, and the documents made, on first request only. The
 * documents come from the composition root (src/wiring.ts), which knows both surfaces.
 */

/** The script that starts Swagger UI on a page: it reads which document from the page, and sends the CSRF header. */
const START_SCRIPT = `window.addEventListener("load", function () {
  var csrf = function () {
    var m = document.cookie.match(/(?:^|; )csrf_token=([^;]*)/);
    return m ? decodeURIComponent(m[1]) : null;
  };
  window.ui = SwaggerUIBundle({
    url: document.body.dataset.document,
    dom_id: "#reference",
    deepLinking: true,
    validatorUrl: null,
    tryItOutEnabled: false,
    // areas start closed: with every operation open, Swagger UI 5.35 stopped drawing after the
    // ninth of the Client API's 130 (it draws up to 127), and one area at a time reads better anyway
    docExpansion: "none",
    requestInterceptor: function (req) {
      var token = csrf();
      if (token && req.method !== "GET") req.headers["x-csrf-token"] = token;
      return req;
    },
  });
});
`;

const page = (title: string, documentUrl: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/api/docs/swagger-ui.css">
</head>
<body data-document="${documentUrl}">
<main id="reference" aria-label="${title}"></main>
<script src="/api/docs/swagger-ui-bundle.js"></script>
<script src="/api/docs/start.js"></script>
</body>
</html>
`;

/** Swagger UI runs only the instance's own scripts; its styles set inline style attributes and its icons are data: URLs. */
const PAGE_HEADERS = {
  "content-security-policy": [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
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
 * /api/openapi.json, /api/bot-openapi.json, /api/docs, /api/bot-docs and Swagger UI's files under
 * /api/docs/. MAKE builds each document on its first request (its builder may be imported only then).
 */
export function referenceRoutes(make: { client: () => Promise<object>; bot: () => Promise<object> }) {
  const once = (build: () => Promise<object>) => {
    let file: Promise<StaticFile> | null = null;
    return () =>
      (file ??= build().then(
        (doc) => textFile(JSON.stringify(doc), "application/json; charset=utf-8"),
        (err) => {
          file = null;
          throw err;
        },
      ));
  };
  const clientDocument = once(make.client);
  const botDocument = once(make.bot);
  const pages = {
    client: textFile(page("socialctl Client API", "/api/openapi.json"), "text/html; charset=utf-8"),
    bot: textFile(page("socialctl Bot API", "/api/bot-openapi.json"), "text/html; charset=utf-8"),
  };
  const assets = new Map<string, () => Promise<StaticFile>>();
  const embedded = (path: string, contentType: string) => {
    let file: Promise<StaticFile> | null = null;
    return () =>
      (file ??= Bun.file(path)
        .arrayBuffer()
        .then((b) => staticFile(new Uint8Array(b), contentType)));
  };
  assets.set("swagger-ui-bundle.js", embedded(swaggerScript, "text/javascript; charset=utf-8"));
  assets.set("swagger-ui.css", embedded(swaggerStyle, "text/css; charset=utf-8"));
  const start = textFile(START_SCRIPT, "text/javascript; charset=utf-8");
  assets.set("start.js", async () => start);

  const hidden = { detail: { hide: true } };
  const noCache = { "cache-control": "no-cache" };
  return new Elysia({ name: "reference", prefix: "/api" })
    .get("/openapi.json", async ({ request }) => respondWithFile(request, await clientDocument(), noCache), hidden)
    .get("/bot-openapi.json", async ({ request }) => respondWithFile(request, await botDocument(), noCache), hidden)
    .get("/docs", ({ request }) => respondWithFile(request, pages.client, PAGE_HEADERS), hidden)
    .get("/bot-docs", ({ request }) => respondWithFile(request, pages.bot, PAGE_HEADERS), hidden)
    .get(
      "/docs/:file",
      async ({ request, params }) => {
        const asset = assets.get(params.file);
        if (!asset) throw notFound();
        // the package version is in the lockfile: a new one changes the ETag, so revalidate daily
        return respondWithFile(request, await asset(), { "cache-control": "public, max-age=86400" });
      },
      hidden,
    );
}
