import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import type { DeliveredEvent } from "../../realtime/broker";
import { startTestServer, type TestServer } from "../../testing/server";
import { quickPerson } from "../../testing/fixtures";
import { waitFor } from "../../testing/wait";
import { FAILED_PREVIEW_TTL_MS, PREVIEW_TTL_MS } from "../../domain/links/preview";
import { MAX_PAGE_BYTES, PREVIEW_TIMEOUT_MS } from "../../http/link-preview";

/*
 * Link previews end to end: real servers on loopback read real pages from a page server the
 * test runs, under the outbound-URL policy (private addresses only with
 * links.allowPrivatePreviews, which `open` turns on and `closed` leaves off).
 */

const OG_PAGE = `<!doctype html><html><head>
<meta charset="utf-8"><title>Plain title</title>
<meta property="og:title" content="Tea &amp; biscuits">
<meta property="og:description" content="  How to   brew
 a proper cup  ">
<meta property="og:image" content="/img/cup.png">
<meta property="og:site_name" content="Tea Times">
<meta name="twitter:title" content="not this one">
</head><body><p>hello</p></body></html>`;

// a page's tags in its declared charset (windows-1251): "Привет" as its title
const CP1251_TITLE = new Uint8Array([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]);

/** Requests each path of the page server got. */
const hits = new Map<string, number>();
const hit = (path: string) => hits.get(path) ?? 0;

function pageServer(hostname: string) {
  return Bun.serve({
    hostname,
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      const url = new URL(req.url);
      hits.set(url.pathname, hit(url.pathname) + 1);
      const html = (body: string | Blob, type = "text/html; charset=utf-8") =>
        new Response(body, { headers: { "content-type": type } });
      switch (url.pathname) {
        case "/og":
        case "/og-for-message":
        case "/og-removed":
        case "/og-public":
          return html(OG_PAGE);
        case "/title-only":
          return html("<html><head><title>\n  Only a title \n</title></head><body>x</body></html>");
        case "/cp1251":
          return html(
            new Blob(["<html><head><title>", CP1251_TITLE, "</title></head></html>"]),
            "text/html; charset=windows-1251",
          );
        case "/large":
          // the tags come only after more than the server reads of a page
          return html(
            `<html><head><!-- ${"x".repeat(MAX_PAGE_BYTES + 1024)} --><meta property="og:title" content="Too far"></head></html>`,
          );
        case "/slow":
          await Bun.sleep(PREVIEW_TIMEOUT_MS + 3_000);
          return html(OG_PAGE);
        case "/image":
          return html("not a page", "image/png");
        default:
          return new Response("not here", { status: 404 });
      }
    },
  });
}

let open: TestServer;
let closed: TestServer;
let pages: ReturnType<typeof pageServer>;
const page = (path: string) => `http://127.0.0.1:${pages.port}${path}`;

beforeAll(async () => {
  pages = pageServer("127.0.0.1");
  [open, closed] = await Promise.all([startTestServer({ "links.allowPrivatePreviews": true }), startTestServer()]);
});
afterAll(async () => {
  await Promise.all([open.stop(), closed.stop()]);
  pages.stop(true);
});

const composerPreview = async (server: TestServer, url: string) => {
  const { client } = await quickPerson(server);
  const res = await client.get(`/api/social/link-preview?url=${encodeURIComponent(url)}`);
  expect(res.status).toBe(200);
  return res.body.data.linkPreview;
};

const OG_PREVIEW = (url: string) => ({
  url,
  title: "Tea & biscuits",
  description: "How to brew a proper cup",
  imageUrl: `http://127.0.0.1:${pages.port}/img/cup.png`,
  siteName: "Tea Times",
});

describe("a post's link preview", () => {
  test("the server reads the page's OpenGraph tags after the post is answered; the post then carries them", async () => {
    const { client } = await quickPerson(open);
    const res = await client.post("/api/social/posts", { content: `Look at this: ${page("/og")}.` });
    expect(res.status).toBe(200);
    const id = res.body.data.post.id;
    const post = await waitFor(async () => {
      const got = (await client.get(`/api/social/posts/${id}`)).body.data.post;
      return got.linkPreview ? got : null;
    });
    expect(post.linkPreview).toEqual(OG_PREVIEW(page("/og")));
    // the feed shows the same post, preview included
    const feed = await client.get(`/api/social/users/${post.author.username}/posts`);
    expect(feed.body.data.posts[0].linkPreview).toEqual(OG_PREVIEW(page("/og")));
    // a later post naming the page is answered with the kept preview, without asking the page again
    const before = hit("/og");
    const again = await client.post("/api/social/posts", { content: page("/og") });
    expect(again.body.data.post.linkPreview).toEqual(OG_PREVIEW(page("/og")));
    expect(hit("/og")).toBe(before);
  });

  test("a page with only <title> gives a preview of its title alone", async () => {
    expect(await composerPreview(open, page("/title-only"))).toEqual({
      url: page("/title-only"),
      title: "Only a title",
      description: null,
      imageUrl: null,
      siteName: null,
    });
  });

  test("the page's declared charset is honoured", async () => {
    expect((await composerPreview(open, page("/cp1251"))).title).toBe("Привет");
  });

  test("tags past the size cap are not read, and what is not a page gives nothing", async () => {
    expect(await composerPreview(open, page("/large"))).toBeNull();
    expect(await composerPreview(open, page("/image"))).toBeNull();
    expect(await composerPreview(open, page("/missing"))).toBeNull();
  });

  test("a slow page gives nothing after the time limit, and never slows a post", async () => {
    const { client } = await quickPerson(open);
    const started = Date.now();
    const res = await client.post("/api/social/posts", { content: `slow ${page("/slow")}` });
    expect(res.status).toBe(200);
    expect(res.body.data.post.linkPreview).toBeNull();
    expect(Date.now() - started).toBeLessThan(PREVIEW_TIMEOUT_MS);
    const asked = Date.now();
    expect(await composerPreview(open, page("/slow"))).toBeNull();
    expect(Date.now() - asked).toBeLessThan(PREVIEW_TIMEOUT_MS + 2_000);
  });

  test("a page that failed is kept for less long than one that was read", async () => {
    await composerPreview(open, page("/missing"));
    await composerPreview(open, page("/title-only"));
    const rows = await open.app.db
      .selectFrom("link_previews")
      .select(["url", "fetched_at", "expires_at", "preview"])
      .where("url", "in", [page("/missing"), page("/title-only")])
      .execute();
    const ttl = (url: string) => {
      const row = rows.find((r) => r.url === url)!;
      return row.expires_at - row.fetched_at;
    };
    expect(ttl(page("/missing"))).toBe(FAILED_PREVIEW_TTL_MS);
    expect(ttl(page("/title-only"))).toBe(PREVIEW_TTL_MS);
  });

  test("removed before sending: the post has none and the page is never asked", async () => {
    const { client } = await quickPerson(open);
    const res = await client.post("/api/social/posts", { content: page("/og-removed"), linkPreview: false });
    expect(res.status).toBe(200);
    expect(res.body.data.post.linkPreview).toBeNull();
    const jobs = await open.app.db.selectFrom("jobs").select("payload").where("kind", "=", "links:preview").execute();
    expect(jobs.some((j) => j.payload?.includes("/og-removed"))).toBe(false);
    // an edit of the text that keeps the link keeps the choice; linkPreview: true brings it back
    const id = res.body.data.post.id;
    const edited = await client.patch(`/api/social/posts/${id}`, { content: `again ${page("/og-removed")}` });
    expect(edited.body.data.post.linkPreview).toBeNull();
    expect(hit("/og-removed")).toBe(0);
    await client.patch(`/api/social/posts/${id}`, { linkPreview: true });
    const back = await waitFor(async () => (await client.get(`/api/social/posts/${id}`)).body.data.post.linkPreview);
    expect(back).toEqual(OG_PREVIEW(page("/og-removed")));
    const removed = await client.patch(`/api/social/posts/${id}`, { linkPreview: false });
    expect(removed.body.data.post.linkPreview).toBeNull();
  });

  test("the composer's preview takes only http(s) links", async () => {
    const { client } = await quickPerson(open);
    const res = await client.get(`/api/social/link-preview?url=${encodeURIComponent("ftp://example.test/x")}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("VALIDATION_ERROR");
  });
});

describe("a message's link preview", () => {
  test("arrives as an edit of the message; removed before sending, it never comes", async () => {
    const [a, b] = [await quickPerson(open), await quickPerson(open)];
    const cid = (await a.client.post(`/api/social/users/${b.user.username}/message`)).body.data.conversationId;
    const seen: DeliveredEvent[] = [];
    const stop = open.app.events.subscribe(b.user.id, (e) => seen.push(e));
    try {
      const sent = await a.client.post(`/api/social/messages/${cid}`, { content: `see ${page("/og-for-message")}` });
      expect(sent.status).toBe(200);
      expect(sent.body.data.message.linkPreview).toBeUndefined();
      const edited = await waitFor(() =>
        seen.find((e) => e.event === "message:edited" && (e.data as any).message.linkPreview),
      );
      expect((edited.data as any).message.linkPreview).toEqual(OG_PREVIEW(page("/og-for-message")));
      const history = await b.client.get(`/api/social/messages/${cid}`);
      expect(history.body.data.messages[0].linkPreview).toEqual(OG_PREVIEW(page("/og-for-message")));

      const off = await a.client.post(`/api/social/messages/${cid}`, {
        content: `again ${page("/og-for-message")}`,
        linkPreview: false,
      });
      expect(off.status).toBe(200);
      expect(off.body.data.message.linkPreview).toBeUndefined();
      const later = await b.client.get(`/api/social/messages/${cid}`);
      expect(later.body.data.messages[0].content).toContain("again");
      expect(later.body.data.messages[0].linkPreview).toBeUndefined();
    } finally {
      stop();
    }
  });
});

describe("the outbound-URL policy (links.allowPrivatePreviews off)", () => {
  test("a private address is refused without being asked", async () => {
    const before = hit("/og");
    expect(await composerPreview(closed, page("/og"))).toBeNull();
    const { client } = await quickPerson(closed);
    // another URL than the composer's: the post's own job asks (and is refused)
    const res = await client.post("/api/social/posts", { content: page("/og?from=post") });
    const id = res.body.data.post.id;
    await waitFor(async () => {
      const jobs = await closed.app.db.selectFrom("jobs").select("state").where("kind", "=", "links:preview").execute();
      return jobs.length > 0 && jobs.every((j) => j.state === "done");
    });
    expect((await client.get(`/api/social/posts/${id}`)).body.data.post.linkPreview).toBeNull();
    expect(hit("/og")).toBe(before);
  });

  // a public-looking address needs one the test owns: added to the loopback interface for the test
  const PUBLIC_ADDR = `100.128.${(process.pid >> 8) & 255}.${process.pid & 255 || 1}`;
  const ip = (...args: string[]) => spawnSync("ip", args, { encoding: "utf8", timeout: 5_000 });
  const usable = process.getuid?.() === 0 && ip("-V").status === 0;

  test.skipIf(!usable)("a redirect from a public page to a private address is refused", async () => {
    const added = ip("addr", "add", `${PUBLIC_ADDR}/32`, "dev", "lo");
    expect(added.status).toBe(0);
    const publicPages = Bun.serve({
      hostname: PUBLIC_ADDR,
      port: 0,
      fetch: (req) => {
        const path = new URL(req.url).pathname;
        if (path === "/to-private") return Response.redirect(page("/og"), 302);
        return new Response(OG_PAGE, { headers: { "content-type": "text/html" } });
      },
    });
    try {
      const publicUrl = `http://${PUBLIC_ADDR}:${publicPages.port}/og-public`;
      // the public page itself is read: the policy lets its address through
      expect((await composerPreview(closed, publicUrl))?.title).toBe("Tea & biscuits");
      const before = hit("/og");
      expect(await composerPreview(closed, `http://${PUBLIC_ADDR}:${publicPages.port}/to-private`)).toBeNull();
      expect(hit("/og")).toBe(before);
    } finally {
      publicPages.stop(true);
      ip("addr", "del", `${PUBLIC_ADDR}/32`, "dev", "lo");
    }
  });
});
