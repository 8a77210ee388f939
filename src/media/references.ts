import { sql } from "kysely";
import type { App } from "../app";
import type { Db } from "../db";
import { fileStore } from "./store";
import { RENDITION_BOXES } from "./image";
import { FILE_NAME, renditionKey } from "./uploads";
import type { UploadRow } from "./table";

/**
 * Every column that can hold one of this instance's file URLs (absolute under baseUrl or
 * path-only, alone or inside JSON). A feature that stores file URLs in a new column adds it
 * here, or the abandoned-uploads cleanup could take its files away.
 */
export const FILE_URL_COLUMNS: ReadonlyArray<{ table: string; columns: readonly string[] }> = [
  { table: "users", columns: ["avatar_url", "cover_url", "cover_video_url"] },
  { table: "posts", columns: ["images"] },
  { table: "comments", columns: ["media"] },
  { table: "stories", columns: ["media_url", "thumb_url"] },
  { table: "conversations", columns: ["photo_url"] },
  // invoices and service payloads may carry photos too
  { table: "messages", columns: ["media", "invoice", "extra"] },
];

/** A stored file name inside any text: the 24-character base shared by a file, its thumbnail, poster and renditions. */
const FILE_IN_TEXT = /\/files\/([A-Za-z0-9_-]{24})(?:-[tp]|-d\d{2,4})?\.[a-z0-9]{1,5}/g;
const SCAN_PAGE = 2000;

/** The 24-character base of a storage key (`<base>.<ext>`, `<base>-t.webp`...). */
export const fileBaseOf = (key: string): string => key.slice(0, 24);

/**
 * The bases of every stored file some row still points at (see FILE_URL_COLUMNS), and the
 * instance's icon (config instance.icon). Reads
 * page by page in id order and yields between pages, so requests keep being served.
 */
export async function referencedFileBases(app: App): Promise<Set<string>> {
  const found = new Set<string>();
  for (const { table, columns } of FILE_URL_COLUMNS) {
    const present = columns.map((c) => `(${c} IS NOT NULL AND ${c} NOT IN ('', '[]'))`).join(" OR ");
    const page = (after: number) =>
      sql<Record<string, string | number | null>>`SELECT id, ${sql.raw(columns.join(", "))} FROM ${sql.raw(table)}
        WHERE id > ${after} AND (${sql.raw(present)}) ORDER BY id LIMIT ${SCAN_PAGE}`.execute(app.db);
    let after = 0;
    for (;;) {
      const { rows } = await page(after);
      for (const row of rows) {
        for (const c of columns) {
          const text = row[c];
          if (typeof text === "string") for (const m of text.matchAll(FILE_IN_TEXT)) found.add(m[1]!);
        }
      }
      if (rows.length < SCAN_PAGE) break;
      after = rows[rows.length - 1]!.id as number;
      await new Promise((r) => setImmediate(r));
    }
  }
  // the instance's icon lives in a setting, not a row
  for (const m of app.config["instance.icon"].matchAll(FILE_IN_TEXT)) found.add(m[1]!);
  return found;
}

/** A stored file's own name (not a thumbnail's or poster's) inside any text. */
const STORED_FILE_IN_TEXT = /\/files\/(?:[A-Za-z0-9_-]{2}\/)?([A-Za-z0-9_-]{24}\.[a-z0-9]{1,5})(?![A-Za-z0-9_.-])/g;

/**
 * The uploads whose files TEXTS name (file URLs, or JSON holding them: a message's media, a
 * post's images, an avatar URL), as what used them goes, in that deletion's transaction TX: no
 * longer marked attached, and released at NOW. The released-uploads cleanup then removes their
 * files unless something else still references them (a forward, a repost of the same upload),
 * so naming more uploads than went costs a check, never a file.
 */
export async function releaseFilesIn(
  tx: Db,
  texts: ReadonlyArray<string | null | undefined>,
  now: number,
): Promise<void> {
  const keys = new Set<string>();
  for (const text of texts) if (text) for (const m of text.matchAll(STORED_FILE_IN_TEXT)) keys.add(m[1]!);
  const all = [...keys];
  for (let i = 0; i < all.length; i += 500)
    await tx
      .updateTable("uploads")
      .set({ attached_at: null, released_at: now })
      .where("storage_key", "in", all.slice(i, i + 500))
      .execute();
}

type PurgeCandidate = Pick<UploadRow, "id" | "storage_key" | "thumb_url" | "poster_url">;

/**
 * Removes those of CANDIDATES (uploads not marked attached) that nothing references: the
 * row first, then the file, its thumbnail and poster. Candidates found referenced (a bot's
 * file, which is not marked on use) are marked attached at NOW, so they are not scanned
 * again. An upload attached meanwhile is kept. Returns the uploads removed.
 */
export async function purgeUnreferencedUploads(app: App, candidates: PurgeCandidate[], now: number): Promise<number> {
  if (candidates.length === 0) return 0;
  const referenced = await referencedFileBases(app);
  const used = candidates.filter((u) => referenced.has(fileBaseOf(u.storage_key)));
  const unused = candidates.filter((u) => !referenced.has(fileBaseOf(u.storage_key)));
  let removed = 0;
  for (let i = 0; i < Math.max(used.length, unused.length); i += 500) {
    const markIds = used.slice(i, i + 500).map((u) => u.id);
    if (markIds.length)
      await app.db
        .updateTable("uploads")
        .set({ attached_at: now })
        .where("id", "in", markIds)
        .where("attached_at", "is", null)
        .execute();
    const dropIds = unused.slice(i, i + 500).map((u) => u.id);
    if (!dropIds.length) continue;
    const gone = await app.db
      .deleteFrom("uploads")
      .where("id", "in", dropIds)
      .where("attached_at", "is", null)
      .returning(["storage_key", "thumb_url", "poster_url"])
      .execute();
    for (const row of gone) await deleteUploadFiles(app, row);
    removed += gone.length;
  }
  return removed;
}

/** Deletes an upload's stored files: the file itself, its thumbnail, its poster and its display renditions. */
export async function deleteUploadFiles(
  app: App,
  row: Pick<UploadRow, "storage_key" | "thumb_url" | "poster_url">,
): Promise<void> {
  const store = fileStore(app);
  const keys = new Set([row.storage_key, ...RENDITION_BOXES.map((box) => renditionKey(row.storage_key, box))]);
  for (const url of [row.thumb_url, row.poster_url]) {
    // by file name, not origin: the URL keeps the baseUrl of upload time, which may have changed
    const key = url?.split("/").pop();
    if (key && FILE_NAME.test(key) && fileBaseOf(key) === fileBaseOf(row.storage_key)) keys.add(key);
  }
  for (const key of keys) await store.delete(key);
}
