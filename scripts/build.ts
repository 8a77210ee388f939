#!/usr/bin/env bun
/**
 * Builds dist/socialctl, one executable holding the server, the CLI and sharp's native
 * libraries. sharp normally loads its addon and libvips from node_modules, which a copied
 * binary does not have; so its binding module (sharp/dist/sharp.mjs) is swapped for one
 * that embeds both files (`with { type: "file" }`) and loads them through
 * src/media/native.ts, which writes them once under <data-dir>/native/ with the same
 * relative layout (the addon's rpath $ORIGIN/../../sharp-libvips-<platform>/lib then finds
 * libvips) and calls process.dlopen.
 *
 * The bytecode is laid out by a profile of the start (Bun's `--bytecode-order`): the build
 * runs once, the binary so built serves a few requests on a scratch data dir while Bun records
 * which functions it loaded, and the build runs again with the functions of that start packed
 * at the front, so a serving process maps less of its own bytecode. The profile
 * holds hashes of the functions' syntax, not code or positions, and lives only for the build.
 *
 * Usage: bun scripts/build.ts [--outfile dist/socialctl] [--no-order]
 */
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import type { BunPlugin } from "bun";
import { WEB_BUILD_OPTIONS } from "../src/http/web-app";
import { freePort } from "./smoke-binary";
import { CLIENT_API } from "../src/clientapi";

const root = resolve(import.meta.dir, "..");
const START_JIT_POLICY = 1000;
const outArg = process.argv.indexOf("--outfile");
const outfile = resolve(root, outArg > 0 ? process.argv[outArg + 1]! : "dist/socialctl");
const platform = `${process.platform}-${process.arch}`;

/** The addon and libvips of this platform, with paths relative to node_modules. */
export function nativeFiles(): { addon: string; libs: Array<{ abs: string; rel: string }> } {
  const modules = join(root, "node_modules");
  const addonDir = join(modules, "@img", `sharp-${platform}`, "lib");
  const vipsDir = join(modules, "@img", `sharp-libvips-${platform}`, "lib");
  const addons = readdirSync(addonDir).filter((f) => f.endsWith(".node"));
  const vips = readdirSync(vipsDir).filter((f) => /^libvips-cpp\.so/.test(f) || /^libvips-cpp.*\.dylib$/.test(f));
  if (addons.length !== 1)
    throw new Error(`expected one sharp addon in ${addonDir}, found ${addons.join(", ") || "none"}`);
  if (vips.length === 0) throw new Error(`no libvips library in ${vipsDir}`);
  const libs = [join(addonDir, addons[0]!), ...vips.map((f) => join(vipsDir, f))].map((abs) => ({
    abs,
    rel: relative(modules, abs),
  }));
  return { addon: libs[0]!.rel, libs };
}

/**
 * Swaps sharp's binding modules (ESM and CommonJS) for the embedded loader. The loader module
 * only holds paths until `loadBinding()` runs, and sharp itself is required lazily by
 * src/media/sharp.ts, so the binary starts without touching native code.
 */
function sharpBindingPlugin(): BunPlugin {
  const { addon, libs } = nativeFiles();
  const loader = join(root, "src/media/native.ts");
  const nativeModule = [
    `import { loadEmbeddedSharpBinding } from ${JSON.stringify(loader)};`,
    ...libs.map((lib, i) => `import lib${i} from ${JSON.stringify(lib.abs)} with { type: "file" };`),
    `export function loadBinding() {`,
    `  return loadEmbeddedSharpBinding([${libs.map((lib, i) => `{ embedded: lib${i}, rel: ${JSON.stringify(lib.rel)} }`).join(", ")}], ${JSON.stringify(addon)});`,
    `}`,
  ].join("\n");
  return {
    name: "embed-sharp-native",
    setup(build) {
      build.onResolve({ filter: /^socialctl:sharp-native$/ }, () => ({ path: "sharp-native", namespace: "socialctl" }));
      build.onLoad({ filter: /.*/, namespace: "socialctl" }, () => ({ contents: nativeModule, loader: "js" }));
      build.onLoad({ filter: /[\\/]sharp[\\/]dist[\\/]sharp\.cjs$/ }, () => ({
        contents: `module.exports = require("socialctl:sharp-native").loadBinding();`,
        loader: "js",
      }));
      build.onLoad({ filter: /[\\/]sharp[\\/]dist[\\/]sharp\.mjs$/ }, () => ({
        contents: `import { loadBinding } from "socialctl:sharp-native";\nexport default loadBinding();`,
        loader: "js",
      }));
    },
  };
}

async function build(bytecodeOrder?: string): Promise<void> {
  const result = await Bun.build({
    entrypoints: [join(root, "cli/index.ts")],
    compile: {
      outfile,
      autoloadDotenv: false,
      autoloadBunfig: false,
      // the JIT's tier-up thresholds ×1000 until the start's run-once code is done (src/main.ts puts
      // them back): none of the start's code is compiled (a smaller factor still lets the Client API's
      // build and its mount compile functions whose machine code an idle process then keeps)
      jitPolicy: START_JIT_POLICY,
      ...(bytecodeOrder ? { bytecodeOrder } : {}),
    },
    // the web app (src/web, an HTML import of src/http/web-app.ts) is bundled and embedded with these
    ...WEB_BUILD_OPTIONS,
    sourcemap: "linked",
    // JavaScriptCore bytecode compiled at build time: the binary skips parsing its JavaScript
    // at every start (a much sooner first response, for a larger file). ESM keeps the web app's
    // code splitting (and lazy `import()`s become chunks loaded on first use).
    bytecode: true,
    format: "esm",
    plugins: [sharpBindingPlugin()],
  });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    process.exit(1);
  }
}

/**
 * The requests of the recorded start: the probe, the first Client API request (which builds the
 * Client API's part under /api/auth), the CSRF token a page asks first and the web app's page;
 * then one request under each prefix of the Client API, which builds the other parts, so their
 * code is packed after the start's instead of spread over the rest of the bundle (a server that
 * has built every part maps less of it; the start's own pages are the same).
 */
const RECORDED_PATHS = [
  "/healthz",
  "/api/auth/me",
  "/api/auth/csrf",
  "/",
  ...CLIENT_API.map((entry) => `/api${entry.prefix}/`),
];

/**
 * Runs BINARY's `serve` on a scratch data dir with Bun recording the functions it loads, through
 * RECORDED_PATHS, and writes the profile to ORDER_FILE on the server's exit. Bounded: 30 s to
 * answer, 10 s to stop.
 */
async function recordStart(binary: string, orderFile: string, dir: string): Promise<void> {
  const port = await freePort();
  const dataDir = join(dir, "data");
  const env: Record<string, string | undefined> = { ...process.env, BUN_BYTECODE_ORDER_OUT: orderFile };
  for (const key of Object.keys(env)) if (key.startsWith("SOCIAL_")) delete env[key];
  const serve = Bun.spawn([binary, "--data-dir", dataDir, "serve", "--port", String(port), "--host", "127.0.0.1"], {
    env,
    stdout: "ignore",
    stderr: "pipe",
    stdin: "ignore",
  });
  try {
    const base = `http://127.0.0.1:${port}`;
    const deadline = performance.now() + 30_000;
    for (;;) {
      if (serve.exitCode !== null || performance.now() > deadline)
        throw new Error(`the build's serve did not answer: ${await new Response(serve.stderr).text()}`);
      const up = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) break;
      await Bun.sleep(20);
    }
    for (const path of RECORDED_PATHS) await (await fetch(`${base}${path}`)).arrayBuffer();
  } finally {
    // the profile is written as the process exits
    serve.kill("SIGTERM");
    let timer: Timer | undefined;
    await Promise.race([serve.exited, new Promise((res) => (timer = setTimeout(res, 10_000)))]);
    clearTimeout(timer);
    serve.kill("SIGKILL");
  }
  if (!statSync(orderFile, { throwIfNoEntry: false })?.size)
    throw new Error("the build's serve wrote no bytecode profile");
}

if (import.meta.main) {
  const started = performance.now();
  await build();
  let laidOut = "";
  if (!process.argv.includes("--no-order")) {
    const scratch = mkdtempSync(join(tmpdir(), "socialctl-build-"));
    try {
      const orderFile = join(scratch, "serve.order");
      await recordStart(outfile, orderFile, scratch);
      await build(orderFile);
      laidOut = ", bytecode laid out by a recorded start";
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
  console.log(
    `built ${relative(process.cwd(), outfile) || outfile} in ${Math.round(performance.now() - started)} ms${laidOut} (${dirname(outfile)})`,
  );
}
