import { join } from "node:path";
import type { App } from "../app";

export type Sharp = typeof import("sharp").default;

declare global {
  /** where the compiled binary writes its embedded native libraries (see native.ts) */
  var __socialctlNativeDir: string | undefined;
}

let loading: Promise<Sharp> | null = null;

/**
 * sharp, loaded on first use so the rest of the app starts even when its native library
 * cannot load. In the compiled binary sharp's binding module is native.ts's loader (see
 * scripts/build.ts), which unpacks the embedded libraries under <data-dir>/native/ first.
 * A failure is remembered and rethrown to every caller. Never import "sharp" directly.
 */
export function loadSharp(app: App): Promise<Sharp> {
  globalThis.__socialctlNativeDir ??= join(app.dataDir, "native");
  // require (not import): the bundler keeps a CommonJS module unevaluated until this call,
  // so neither the binary's start nor any CLI command touches native code
  loading ??= Promise.resolve().then(() => require("sharp") as Sharp);
  return loading;
}

/** The load error of sharp as a one-line reason, or null when sharp works. */
export async function sharpUnavailableReason(app: App): Promise<string | null> {
  try {
    await loadSharp(app);
    return null;
  } catch (err) {
    return (err instanceof Error ? err.message : String(err)).split("\n")[0]!;
  }
}
