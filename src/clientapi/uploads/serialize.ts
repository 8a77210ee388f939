import { toIso } from "../../lib/clock";
import { processingNotes } from "../../media/uploads";
import { renditionsOf, type UploadRow } from "../../media/table";

/** An upload result as the Client API shows it (`url`, `thumb`, `posterUrl` plus details). */
export function serializeUpload(row: UploadRow) {
  return {
    id: row.cuid,
    url: row.url,
    thumb: row.thumb_url,
    posterUrl: row.poster_url,
    renditions: renditionsOf(row).map((r) => ({ url: r.url, width: r.width, height: r.height })),
    kind: row.kind,
    mime: row.mime.split(";")[0]!,
    sizeBytes: row.size_bytes,
    width: row.width,
    height: row.height,
    durationMs: row.duration_ms,
    name: row.original_name,
    processing: processingNotes(row),
    createdAt: toIso(row.created_at),
  };
}
