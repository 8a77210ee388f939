import { afterEach } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openStorage, type Storage } from "../db";

/**
 * Opens SQLite storages, each in a file of a temporary directory of its own (so a second
 * connection can open it), closed and removed after each test of the file that calls this.
 */
export function tempStorages(name: string): () => { storage: Storage; path: string } {
  const opened: Array<{ storage: Storage; dir: string }> = [];
  afterEach(async () => {
    for (const { storage, dir } of opened.splice(0)) {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), `socialctl-${name}-`));
    const path = join(dir, "social.db");
    const storage = openStorage(path);
    opened.push({ storage, dir });
    return { storage, path };
  };
}
