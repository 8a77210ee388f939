import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { loadSharp } from "../media/sharp";
import { referencedFileBases } from "../media/references";
import { adminWorld, expectError, type AdminWorld } from "../testing/admin";
import { pngOf } from "../testing/media";
import { postUpload } from "../testing/uploads";

// The installable app over HTTP: the manifest from the instance's identity, icons made from the
// uploaded or default icon, the service worker's script and headers, the page's head.
let world: AdminWorld;
beforeAll(async () => {
  world = await adminWorld();
});
afterAll(() => world.server.stop());

const get = (path: string, headers: Record<string, string> = {}) => fetch(world.server.url + path, { headers });

async function pixelsOf(res: Response) {
  const sharp = await loadSharp(world.server.app);
  const image = sharp(new Uint8Array(await res.arrayBuffer()));
  const meta = await image.metadata();
  const { dominant } = await image.stats();
  return { format: meta.format, width: meta.width, height: meta.height, dominant };
}

describe("installable app", () => {
  test("the manifest follows the instance's name and description as an administrator changes them", async () => {
    const res = await get("/manifest.webmanifest");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/manifest+json");
    expect(await res.json()).toMatchObject({
      name: "socialctl",
      start_url: "/",
      scope: "/",
      display: "standalone",
      icons: [
        { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
        { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
        { src: "/icons/maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
      ],
    });
    const patched = await world.admin.patch("/api/admin/settings", {
      "instance.name": "Harbour <Town>",
      "instance.description": "Boats and the people on them",
    });
    expect(patched.status).toBe(200);
    const after = (await (await get("/manifest.webmanifest")).json()) as { short_name: string };
    expect(after).toMatchObject({ name: "Harbour <Town>", description: "Boats and the people on them" });
    expect(after.short_name.length).toBeLessThanOrEqual(12);
    // the page's title says the name too, escaped
    const page = await (await get("/", { accept: "text/html" })).text();
    expect(page).toContain("<title>Harbour &lt;Town&gt;</title>");
    expect(page).toContain('<link rel="manifest" href="/manifest.webmanifest" />');
    expect(page).not.toContain('href="data:,"');
  });

  test("icons are PNGs of their sizes, made from the uploaded icon once an administrator sets it, and back to the default", async () => {
    const defaults = await pixelsOf(await get("/icons/icon-512.png"));
    expect(defaults).toMatchObject({ format: "png", width: 512, height: 512 });
    for (const [name, size] of [
      ["icon-192.png", 192],
      ["maskable-512.png", 512],
      ["apple-touch-icon.png", 180],
      ["favicon-32.png", 32],
    ] as const) {
      const res = await get(`/icons/${name}`);
      expect(res.headers.get("content-type")).toBe("image/png");
      expect(await pixelsOf(res)).toMatchObject({ width: size, height: size });
    }
    expect((await get("/icons/other.png")).status).toBe(404);

    // a red square uploaded as the icon
    const sharp = await loadSharp(world.server.app);
    const red = new Uint8Array(
      await sharp({ create: { width: 600, height: 600, channels: 3, background: "#d01010" } })
        .png()
        .toBuffer(),
    );
    const upload = await postUpload(world.admin, "avatar", red, { filename: "icon.png", type: "image/png" });
    expect(upload.status).toBe(200);
    const set = await world.admin.patch("/api/admin/settings", { "instance.icon": upload.body.data.url });
    expect(set.status).toBe(200);
    const stored = world.server.app.config["instance.icon"];
    expect(stored).toMatch(/^\/files\/[A-Za-z0-9_-]{24}\.png$/);
    const icon = await pixelsOf(await get("/icons/icon-192.png"));
    expect(icon).toMatchObject({ width: 192, height: 192 });
    expect(icon.dominant.r).toBeGreaterThan(150);
    expect(icon.dominant.b).toBeLessThan(80);
    // the abandoned-uploads cleanup leaves the icon's file alone
    expect(await referencedFileBases(world.server.app)).toContain(
      stored.slice("/files/".length, "/files/".length + 24),
    );

    // anything but an uploaded file of this instance is refused, naming the key
    for (const bad of ["https://elsewhere.example/logo.png", "/etc/passwd", "not a url"])
      expectError(await world.admin.patch("/api/admin/settings", { "instance.icon": bad }), 400, "VALIDATION_ERROR");
    // ordinary people cannot change it
    expect((await world.person.patch("/api/admin/settings", { "instance.icon": "" })).status).toBe(403);

    expect((await world.admin.patch("/api/admin/settings", { "instance.icon": "" })).status).toBe(200);
    const back = await pixelsOf(await get("/icons/icon-512.png"));
    expect(back.dominant).toEqual(defaults.dominant);
  });

  test("/sw.js lists the build's files, is never cached without revalidation, and may control the root scope", async () => {
    const res = await get("/sw.js");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("text/javascript");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("service-worker-allowed")).toBe("/");
    const script = await res.text();
    const build = JSON.parse(script.slice("const BUILD = ".length, script.indexOf(";\n")));
    const page = await (await get("/", { accept: "text/html" })).text();
    for (const [, chunk] of page.matchAll(/(?:src|href)="(\/chunk-[^"]+)"/g)) expect(build.files).toContain(chunk);
    // the app's own files only: nothing of the API or of people's uploads
    expect(build.files.filter((f: string) => !f.startsWith("/chunk-"))).toEqual([]);
    expect(build.version).toMatch(/^[a-z0-9]+$/);
    expect(build.shell).toBe("/");
    // the same build, the same bytes: a restart, another node or a renamed instance prompts no update
    expect((await world.admin.patch("/api/admin/settings", { "instance.name": "Renamed" })).status).toBe(200);
    const again = await (await get("/sw.js")).text();
    expect(again).toBe(script);
  });
});
