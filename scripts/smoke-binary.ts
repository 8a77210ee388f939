#!/usr/bin/env bun
/**
 * End-to-end check of the compiled binary copied ALONE into an empty folder (no
 * node_modules anywhere near it): builds dist/socialctl, copies it to a temp dir, runs
 * `init --yes`, `serve` in the background, checks the web app and the API reference it
 * embeds, `user create`, signs in over HTTP, uploads a PNG and checks that sharp made a webp
 * thumbnail. Exits non-zero with the failing step.
 * The steps are exported for scripts/smoke-binary.test.ts, which also runs a backup and
 * restore round trip through the binary.
 *
 * Usage: bun scripts/smoke-binary.ts [--no-build] [--keep]
 */
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "..");
const args = new Set(process.argv.slice(2));
/** the binary `npm test` built for its run (SOCIAL_TEST_BINARY), else the build's own output */
export const binary = process.env.SOCIAL_TEST_BINARY ?? join(root, "dist", "socialctl");
/** a 64×48 blue PNG */
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAwCAIAAAAuKetIAAAACXBIWXMAAAPoAAAD6AG1e1JrAAAAfUlEQVRoge2SAQkAURSDlseIF9ckF2M8/sAAOhY+T5O6AQuwviK7kHdJ3YAFWF+RXci7pG7AAqyvyC7kXVI3YAHWV2QX8i6pG7AA6yuyC3mX1A1YgPUV2YW8S+oGLMD6iuxC3iV1AxZgfUV2Ie+SugELsL4iu5B3Sd2AxwN+pm9JD4t01M8AAAAASUVORK5CYII=",
  "base64",
);

const step = (text: string) => console.log(`• ${text}`);

function fail(text: string): never {
  throw new Error(text);
}

/** A free loopback port (the OS picks it; closed again before it is returned). */
export async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
  });
}

/** Runs the copied binary in DIR with a clean environment (no data dir or port from the caller); its stdout. */
export async function runBinary(dir: string, argv: string[]): Promise<string> {
  const proc = Bun.spawn([join(dir, "socialctl"), ...argv], {
    cwd: dir,
    env: cleanEnv(),
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) fail(`socialctl ${argv.join(" ")} exited ${code}: ${err.trim() || out.trim()}`);
  return out;
}

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !k.startsWith("SOCIAL_") && k !== "NODE_PATH") env[k] = v;
  return env;
}

async function waitForHealth(url: string, proc: { exitCode: number | null }, stderr: () => string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    if (proc.exitCode !== null) fail(`serve exited ${proc.exitCode}: ${stderr()}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await Bun.sleep(100);
  }
  fail("server did not answer /healthz within 15 s");
}

/** Builds the binary with scripts/build.ts (the release build: bytecode laid out by a recorded start). */
export async function buildBinary(): Promise<void> {
  step(`building ${binary}`);
  const build = Bun.spawn([process.execPath, join(root, "scripts/build.ts"), "--outfile", binary], {
    cwd: root,
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await build.exited) !== 0) fail("build failed");
}

/** Copies dist/socialctl ALONE into a new empty temp dir; returns the dir. */
export function copyBinary(): string {
  if (!existsSync(binary)) fail(`${binary} does not exist (run the build)`);
  const dir = mkdtempSync(join(tmpdir(), "socialctl-smoke-"));
  copyFileSync(binary, join(dir, "socialctl"));
  Bun.spawnSync(["chmod", "755", join(dir, "socialctl")]);
  step(`copied the binary alone into ${dir}`);
  return dir;
}

/** `init --yes` in DIR on a free loopback port; returns the base URL. */
export async function initInstance(dir: string): Promise<{ port: number; base: string }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await runBinary(dir, ["init", "--yes", "--port", String(port), "--base-url", base]);
  step("init --yes");
  return { port, base };
}

export interface ServingBinary {
  base: string;
  /** SIGTERM, then waits for a clean exit (SIGKILL after 10 s); fails on a non-zero exit */
  stop(): Promise<void>;
}

/** `serve` from DIR in the background (EXTRA are global flags such as --data-dir), once /healthz answers. */
export async function serveBinary(dir: string, port: number, extra: string[] = []): Promise<ServingBinary> {
  const base = `http://127.0.0.1:${port}`;
  const server = Bun.spawn([join(dir, "socialctl"), ...extra, "serve", "--port", String(port), "--host", "127.0.0.1"], {
    cwd: dir,
    env: cleanEnv(),
    stdout: "ignore",
    stderr: "pipe",
    stdin: "ignore",
  });
  let serverErr = "";
  void (async () => {
    for await (const chunk of server.stderr as ReadableStream<Uint8Array>)
      serverErr = (serverErr + new TextDecoder().decode(chunk)).slice(-4000);
  })();
  try {
    await waitForHealth(base, server, () => serverErr);
  } catch (err) {
    server.kill("SIGKILL");
    throw err;
  }
  step(`serve on ${base}`);
  let stopped: Promise<void> | null = null;
  return {
    base,
    stop: () =>
      (stopped ??= (async () => {
        server.kill("SIGTERM");
        const exited = await Promise.race([server.exited, Bun.sleep(10_000).then(() => null)]);
        if (exited === null) {
          server.kill("SIGKILL");
          fail("serve did not stop within 10 s of SIGTERM");
        }
        if (exited !== 0) fail(`serve exited ${exited} on SIGTERM: ${serverErr}`);
        step("serve stopped on SIGTERM");
      })()),
  };
}

/** `user create --verified` through the binary. */
export async function createUser(
  dir: string,
  user: { email: string; username: string; password: string },
  extra: string[] = [],
): Promise<void> {
  const created = JSON.parse(
    await runBinary(dir, [
      ...extra,
      "--json",
      "user",
      "create",
      "--email",
      user.email,
      "--username",
      user.username,
      "--password",
      user.password,
      "--verified",
    ]),
  );
  if (created.username !== user.username) fail(`user create printed ${JSON.stringify(created)}`);
  step("user create");
}

export type Call = (path: string, init?: RequestInit) => Promise<Response>;

/** Signs in over HTTP (CSRF + cookies); returns a fetch that keeps the session. */
export async function signIn(base: string, email: string, password: string): Promise<Call> {
  const jar = new Map<string, string>();
  const call: Call = async (path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("cookie", [...jar].map(([k, v]) => `${k}=${v}`).join("; "));
    if (jar.has("csrf_token")) headers.set("x-csrf-token", decodeURIComponent(jar.get("csrf_token")!));
    const res = await fetch(base + path, { ...init, headers });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
    }
    return res;
  };
  await call("/api/auth/csrf");
  const login = await call("/api/auth/login", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password }),
  });
  if (login.status !== 200) fail(`login answered ${login.status}: ${await login.text()}`);
  step("signed in over HTTP");
  return call;
}

/** Uploads the PNG as an avatar and checks that sharp made a webp thumbnail; returns the file URL. */
export async function uploadPngWithThumbnail(call: Call): Promise<string> {
  const form = new FormData();
  form.append("kind", "avatar");
  form.append("file", new Blob([PNG], { type: "image/png" }), "smoke.png");
  const upload = await call("/api/account/upload", { method: "POST", body: form });
  const body = (await upload.json()) as {
    success: boolean;
    data?: { url: string; thumb: string | null; width: number; height: number };
  };
  if (upload.status !== 200 || !body.success) fail(`upload answered ${upload.status}: ${JSON.stringify(body)}`);
  const { url, thumb, width, height } = body.data!;
  if (width !== 64 || height !== 48) fail(`upload recorded ${width}×${height}, expected 64×48`);
  if (!thumb) fail("upload made no thumbnail (sharp not working in the binary)");
  const thumbRes = await fetch(thumb);
  const bytes = new Uint8Array(await thumbRes.arrayBuffer());
  const isWebp =
    new TextDecoder().decode(bytes.subarray(0, 4)) === "RIFF" &&
    new TextDecoder().decode(bytes.subarray(8, 12)) === "WEBP";
  if (thumbRes.status !== 200 || thumbRes.headers.get("content-type") !== "image/webp" || !isWebp)
    fail(`thumbnail ${thumb} answered ${thumbRes.status} ${thumbRes.headers.get("content-type")}`);
  const file = await fetch(url);
  if (file.status !== 200) fail(`file ${url} answered ${file.status}`);
  step(`uploaded a PNG; thumbnail ${thumb} is a ${bytes.length}-byte webp`);
  return url;
}

/** The embedded web app: the page at / and at a deep link, and one of its hashed chunks. */
export async function checkWebApp(base: string): Promise<void> {
  const page = await fetch(`${base}/`, { headers: { accept: "text/html" } });
  const html = await page.text();
  if (page.status !== 200 || !html.includes('<div id="app">')) fail(`/ answered ${page.status}: ${html.slice(0, 200)}`);
  const deep = await fetch(`${base}/auth/link?t=x`, { headers: { accept: "text/html" } });
  if (deep.status !== 200 || (await deep.text()) !== html)
    fail(`a deep link answered ${deep.status} without the app page`);
  const chunk = html.match(/src="(\/chunk-[^"]+\.js)"/)?.[1];
  if (!chunk) fail("the page names no script chunk");
  const js = await fetch(base + chunk);
  const body = await js.text();
  if (js.status !== 200 || !js.headers.get("content-type")?.startsWith("text/javascript") || body.length < 1000)
    fail(`${chunk} answered ${js.status} ${js.headers.get("content-type")} (${body.length} bytes)`);
  if (js.headers.get("cache-control") !== "public, max-age=31536000, immutable")
    fail(`${chunk} is not cached as immutable: ${js.headers.get("cache-control")}`);
  step(`web app served: / (${html.length} bytes) and ${chunk} (${body.length} bytes)`);
}

/** The reference the binary serves offline: both OpenAPI documents, both pages and Swagger UI's embedded files. */
export async function checkReference(base: string): Promise<void> {
  const client = await fetch(`${base}/api/openapi.json`);
  const doc = (await client.json()) as { openapi?: string; paths?: Record<string, unknown> };
  if (client.status !== 200 || doc.openapi !== "3.1.0" || Object.keys(doc.paths ?? {}).length < 80)
    fail(`/api/openapi.json answered ${client.status} with ${Object.keys(doc.paths ?? {}).length} paths`);
  const bot = await fetch(`${base}/api/bot-openapi.json`);
  const botDoc = (await bot.json()) as { paths?: Record<string, unknown> };
  if (bot.status !== 200 || !botDoc.paths?.["/api/bot/{token}/sendMessage"])
    fail(`/api/bot-openapi.json answered ${bot.status} without sendMessage`);
  for (const page of ["/api/docs", "/api/bot-docs"]) {
    const res = await fetch(base + page);
    const html = await res.text();
    if (res.status !== 200 || !html.includes('id="operations-'))
      fail(`${page} answered ${res.status} without operations`);
  }
  step(`reference served: ${Object.keys(doc.paths!).length} Client API paths, pages rendered by the server`);
}

/** Runs FN, then stops SERVER; a failure of FN is reported rather than one of the stop it causes. */
export async function stoppedAfter<T>(server: ServingBinary, fn: () => Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await fn();
  } catch (err) {
    await server.stop().catch(() => undefined);
    throw err;
  }
  await server.stop();
  return result;
}

/** Runs FN with a fresh copy of the binary in a temp dir, removed afterwards unless KEEP. */
export async function withBinaryDir<T>(keep: boolean | undefined, fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = copyBinary();
  try {
    return await fn(dir);
  } finally {
    if (keep) console.log(`kept ${dir}`);
    else rmSync(dir, { recursive: true, force: true });
  }
}

export const SMOKE_USER = { email: "smoke@example.test", username: "smoke", password: "smoke password 1" };

export async function smokeBinary(opts: { build?: boolean; keep?: boolean } = {}): Promise<void> {
  if (opts.build !== false) await buildBinary();
  await withBinaryDir(opts.keep, async (dir) => {
    const { port, base } = await initInstance(dir);
    const server = await serveBinary(dir, port);
    await stoppedAfter(server, async () => {
      await checkWebApp(base);
      await checkReference(base);
      await createUser(dir, SMOKE_USER);
      const call = await signIn(base, SMOKE_USER.email, SMOKE_USER.password);
      await uploadPngWithThumbnail(call);
      if (!existsSync(join(dir, "data", "native"))) fail("native libraries were not unpacked under data/native");
      step(`native libraries unpacked: ${readdirSync(join(dir, "data", "native", "@img")).join(", ")}`);
    });
  });
}

if (import.meta.main) {
  try {
    await smokeBinary({ build: !args.has("--no-build"), keep: args.has("--keep") });
    console.log("smoke-binary: OK");
  } catch (err) {
    console.error(`smoke-binary: FAILED: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
