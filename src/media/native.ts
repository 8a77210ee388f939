import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync, statSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** One native library embedded in the compiled binary, and where it goes under the native dir. */
export interface EmbeddedLib {
  /** path of the embedded copy (inside the binary's virtual filesystem) */
  embedded: string;
  /** path relative to the native dir, keeping node_modules' layout so rpaths ($ORIGIN/../..) resolve */
  rel: string;
}

/**
 * Used only inside the compiled binary, in place of sharp's own binding loader (scripts/build.ts
 * swaps the module): writes the embedded addon and libvips once under the native dir with the
 * same relative layout, then loads the addon with process.dlopen.
 */
let loaded: unknown;

/**
 * Where to unpack when sharp is imported before loadSharp named the data dir (a module
 * importing sharp at startup): the data dir the command line or environment points at if it
 * already exists, else the user's cache; never a shared /tmp path another account could
 * plant a library in.
 */
function fallbackNativeDir(): string {
  const argv = process.argv;
  const at = argv.indexOf("--data-dir");
  const flag = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith("--data-dir="))?.slice("--data-dir=".length);
  const dataDir = resolve(flag ?? process.env.SOCIAL_DATA_DIR ?? "./data");
  if (existsSync(dataDir)) return join(dataDir, "native");
  return join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "socialctl", "native");
}

export function loadEmbeddedSharpBinding(libs: EmbeddedLib[], addonRel: string): unknown {
  // sharp's ESM and CommonJS builds both ask; one copy of libvips serves both
  if (loaded !== undefined) return loaded;
  const root = globalThis.__socialctlNativeDir ?? fallbackNativeDir();
  for (const lib of libs) {
    const target = join(root, lib.rel);
    const data = readFileSync(lib.embedded);
    // rewritten unless byte-identical: a stale or damaged copy never gets loaded
    if (existsSync(target) && statSync(target).size === data.length && readFileSync(target).equals(data)) continue;
    mkdirSync(dirname(target), { recursive: true });
    const tmp = `${target}.${process.pid}.tmp`;
    const fd = openSync(tmp, "w", 0o755);
    try {
      writeSync(fd, data);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, target);
  }
  const mod = { exports: {} as unknown };
  process.dlopen(mod, join(root, addonRel));
  loaded = mod.exports;
  return loaded;
}
