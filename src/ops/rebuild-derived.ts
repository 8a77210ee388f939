import { rmSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../app";
import { randomToken } from "../lib/ids";
import { describeImage } from "../media/image";
import { fileStore, scratchDir } from "../media/store";
import { ffmpegTools, makePoster } from "../media/video";
import { storedNameOf } from "./bucket";

export interface RebuildReport {
  /** derived files that were missing and are back */
  rebuilt: number;
  /** derived files already present */
  present: number;
  /** missing, and could not be made (original gone, unreadable, or no ffmpeg for a poster) */
  failed: Array<{ upload: string; file: string; reason: string }>;
}

/**
 * Makes again the thumbnails and video posters the uploads table lists but the file store
 * lacks (after restoring a backup made with --without-derived), from the original files.
 */
export async function rebuildDerived(
  app: App,
  onProgress?: (done: number, total: number) => void,
): Promise<RebuildReport> {
  const store = fileStore(app);
  const rows = await app.db
    .selectFrom("uploads")
    .select(["cuid", "storage_key", "thumb_url", "poster_url"])
    .where((eb) => eb.or([eb("thumb_url", "is not", null), eb("poster_url", "is not", null)]))
    .orderBy("id")
    .execute();
  const report: RebuildReport = { rebuilt: 0, present: 0, failed: [] };
  for (const [i, row] of rows.entries()) {
    const derived = new Set(
      [row.thumb_url, row.poster_url]
        .map((u) => (u ? storedNameOf(u) : null))
        .filter((k): k is string => k !== null && k !== row.storage_key),
    );
    for (const key of derived) {
      if (await store.get(key)) {
        report.present++;
        continue;
      }
      const reason = await remake(app, row.storage_key, key);
      if (reason) report.failed.push({ upload: row.cuid, file: key, reason });
      else report.rebuilt++;
    }
    onProgress?.(i + 1, rows.length);
  }
  return report;
}

/** Writes one derived file; returns why it could not, or null. */
async function remake(app: App, originalKey: string, key: string): Promise<string | null> {
  const store = fileStore(app);
  const original = await store.get(originalKey);
  if (!original) return "the original file is missing";
  if (key.endsWith("-p.jpg")) {
    const tools = ffmpegTools();
    if (!tools) return "ffmpeg not available";
    const scratch = join(scratchDir(app), randomToken(12));
    try {
      await Bun.write(`${scratch}.in`, original.body);
      if (!(await makePoster(app, tools.ffmpeg, `${scratch}.in`, `${scratch}-p.jpg`)))
        return "ffmpeg could not read a frame";
      await store.put(key, await Bun.file(`${scratch}-p.jpg`).bytes());
      return null;
    } finally {
      rmSync(`${scratch}.in`, { force: true });
      rmSync(`${scratch}-p.jpg`, { force: true });
    }
  }
  const described = await describeImage(app, await original.body.bytes());
  if (!described) return "the original is not a readable image";
  await store.put(key, described.thumb);
  return null;
}
