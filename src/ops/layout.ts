import { sha256 } from "../lib/crypto";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { filesDir } from "../config/layout";

/* The data dir's names live in config/layout.ts; here, walking and hashing what is in it. */

/** Every regular file under `root`, as POSIX paths relative to it, sorted. */
export function walkFiles(root: string): Array<{ rel: string; size: number; mtimeMs: number }> {
  const out: Array<{ rel: string; size: number; mtimeMs: number }> = [];
  if (!existsSync(root)) return out;
  const visit = (dir: string, prefix: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) visit(full, rel);
      else if (entry.isFile()) {
        try {
          const st = statSync(full);
          out.push({ rel, size: st.size, mtimeMs: st.mtimeMs });
        } catch {
          // removed between listing and stat (cleanup of an abandoned upload): not part of the set
        }
      }
    }
  };
  visit(root, "");
  return out.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

/** The instance's stored files under data/files; dot folders hold uploads still being written. */
export const instanceFiles = (dataDir: string) =>
  walkFiles(filesDir(dataDir)).filter((f) => !f.rel.split("/").some((seg) => seg.startsWith(".")));

export const sha256File = (path: string): Promise<string> => sha256Blob(Bun.file(path));

/** sha256 of a Blob read as a stream (a local file, or an object read back from a bucket). */
export async function sha256Blob(blob: Blob): Promise<string> {
  const hash = sha256();
  for await (const chunk of blob.stream()) hash.update(chunk);
  return hash.digest("hex");
}

export const fileSize = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};
