import { rmSync } from "node:fs";
import { join } from "node:path";
import { sql } from "kysely";
import type { App } from "../app";
import { randomToken } from "../lib/ids";
import { describeImage, renderRenditions, RENDITION_BOXES } from "../media/image";
import { UPLOAD_KINDS, isUploadKind } from "../media/kinds";
import { fileStore, scratchDir } from "../media/store";
import { renditionsOf, type Rendition } from "../media/table";
import { fileUrl, renditionKey } from "../media/uploads";
import { ffmpegTools, makePoster } from "../media/video";
import { storedNameOf } from "./bucket";

export interface RebuildReport {
  /** derived files that were missing and are back (display renditions made for the first time included) */
  rebuilt: number;
  /** derived files already present */
  present: number;
  /** missing, and could not be made (original gone, unreadable, or no ffmpeg for a poster) */
  failed: Array<{ upload: string; file: string; reason: string }>;
}

/** Whether uploads of KIND are images re-encoded at upload, which get display renditions. */
const takesRenditions = (kind: string): boolean =>
  isUploadKind(kind) && UPLOAD_KINDS[kind].accepts.length === 1 && UPLOAD_KINDS[kind].accepts[0] === "image";

/**
 * Makes again the thumbnails, video posters and display renditions the uploads table lists
 * but the file store lacks (after restoring a backup made with --without-derived), from the
 * original files; images uploaded before display renditions existed get them, and the posts,
 * comments and messages showing those images are told about them.
 */
export async function rebuildDerived(
  app: App,
  onProgress?: (done: number, total: number) => void,
): Promise<RebuildReport> {
  const store = fileStore(app);
  const rows = await app.db
    .selectFrom("uploads")
    .select(["id", "cuid", "kind", "mime", "url", "storage_key", "thumb_url", "poster_url", "renditions"])
    .where((eb) => eb.or([eb("thumb_url", "is not", null), eb("poster_url", "is not", null)]))
    .orderBy("id")
    .execute();
  const report: RebuildReport = { rebuilt: 0, present: 0, failed: [] };
  const made = new Map<string, Rendition[]>();
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
    if (takesRenditions(row.kind) && row.mime.startsWith("image/")) {
      const listed = renditionsOf(row);
      const missing: string[] = [];
      for (const r of listed) {
        const key = storedNameOf(r.url);
        if (key && (await store.get(key))) report.present++;
        else if (key) missing.push(key);
      }
      if (listed.length === 0 || missing.length > 0) {
        const result = await remakeRenditions(app, row.storage_key, row.mime, listed.length === 0 ? null : missing);
        if (typeof result === "string") {
          const files = listed.length === 0 ? RENDITION_BOXES.map((b) => renditionKey(row.storage_key, b)) : missing;
          for (const file of files) report.failed.push({ upload: row.cuid, file, reason: result });
        } else {
          report.rebuilt += result.written;
          if (listed.length === 0) {
            await app.db
              .updateTable("uploads")
              .set({ renditions: JSON.stringify(result.renditions) })
              .where("id", "=", row.id)
              .execute();
            made.set(row.url, result.renditions);
          }
        }
      }
    }
    onProgress?.(i + 1, rows.length);
  }
  if (made.size > 0) await addRenditionsToAttachments(app, made);
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

/**
 * Renders the display renditions of an original and writes those named in ONLY (all when
 * null); returns what it made, or why it could not.
 */
async function remakeRenditions(
  app: App,
  originalKey: string,
  mime: string,
  only: string[] | null,
): Promise<{ renditions: Rendition[]; written: number } | string> {
  const store = fileStore(app);
  const original = await store.get(originalKey);
  if (!original) return "the original file is missing";
  let images;
  try {
    // originals were re-encoded at upload: already oriented, so no rotation here
    images = await renderRenditions(app, await original.body.bytes(), mime === "image/gif" || mime === "image/webp");
  } catch {
    return "the original is not a readable image";
  }
  const renditions: Rendition[] = [];
  let written = 0;
  for (const image of images) {
    const key = renditionKey(originalKey, image.box);
    if (only === null || only.includes(key)) {
      await store.put(key, image.data);
      written++;
    }
    renditions.push({ url: fileUrl(app, key), width: image.width, height: image.height, size: image.data.byteLength });
  }
  return { renditions, written };
}

/** Where attachments are stored as JSON arrays of objects with a `url`. */
const ATTACHMENT_COLUMNS = [
  { table: "posts", column: "images" },
  { table: "comments", column: "media" },
  { table: "messages", column: "media" },
] as const;
const PAGE = 1000;

/**
 * Adds RENDITIONS (by the original's URL) to the attachments that show those uploads, page by
 * page in id order, so existing posts, comments and messages serve them too.
 */
async function addRenditionsToAttachments(app: App, renditions: Map<string, Rendition[]>): Promise<void> {
  const byKey = new Map([...renditions].map(([url, r]) => [storedNameOf(url), r] as const));
  for (const { table, column } of ATTACHMENT_COLUMNS) {
    let after = 0;
    for (;;) {
      const { rows } = await sql<{
        id: number;
        json: string;
      }>`SELECT id, ${sql.ref(column)} AS json FROM ${sql.table(table)}
        WHERE id > ${after} AND ${sql.ref(column)} LIKE ${"%/files/%"} ORDER BY id LIMIT ${PAGE}`.execute(app.db);
      for (const row of rows) {
        const items = JSON.parse(row.json) as Array<{ url?: string; renditions?: Rendition[] }>;
        let changed = false;
        for (const item of items) {
          const found = item.url ? byKey.get(storedNameOf(item.url)) : undefined;
          if (found && !item.renditions?.length) {
            item.renditions = found;
            changed = true;
          }
        }
        if (changed)
          await sql`UPDATE ${sql.table(table)} SET ${sql.ref(column)} = ${JSON.stringify(items)} WHERE id = ${row.id}`.execute(
            app.db,
          );
      }
      if (rows.length < PAGE) break;
      after = rows[rows.length - 1]!.id;
    }
  }
}
