import { createReadStream, existsSync, readdirSync, statSync } from "node:fs";
import { createHash } from "node:crypto";
import { join } from "node:path";

/** Where things live inside a data dir (product.md "Data directory"). */
export const DB_FILE = "social.db";
export const FILES_DIR = "files";
export const BACKUPS_DIR = "backups";
export const CONFIG_NAME = "config";
export const SECRET_NAME = "secret";

export const PRE_MIGRATE_RE = /^pre-migrate-.+\.db$/;

export const backupsDir = (dataDir: string) => join(dataDir, BACKUPS_DIR);
export const dbPath = (dataDir: string) => join(dataDir, DB_FILE);

/** A sortable, file-name-safe timestamp: 20261122T030900.123Z. */
export const fileStamp = (ms: number): string => new Date(ms).toISOString().replace(/[-:]/g, "");

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
  walkFiles(join(dataDir, FILES_DIR)).filter((f) => !f.rel.split("/").some((seg) => seg.startsWith(".")));

export async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

export const fileSize = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};
