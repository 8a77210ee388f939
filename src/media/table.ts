import type { Generated, Selectable } from "kysely";

export interface UploadsTable {
  id: Generated<number>;
  cuid: string;
  owner_id: number;
  kind: string;
  /** file name in the store: 24 random characters + extension chosen from the sniffed type */
  storage_key: string;
  /** absolute URL under baseUrl at upload time */
  url: string;
  mime: string;
  size_bytes: number;
  width: number | null;
  height: number | null;
  duration_ms: number | null;
  thumb_url: string | null;
  poster_url: string | null;
  /** the client's file name, cleaned; shown as the download name of documents */
  original_name: string | null;
  created_at: number;
  /** set when a post, message, story or profile starts using the file */
  attached_at: number | null;
  /** set when what used the file went (deleted for everyone, deleted); the released-uploads cleanup then removes it unless still referenced */
  released_at: number | null;
  /** SHA-256 (hex) of the bytes a bot uploaded: the same bytes again reuse the upload; null for others */
  content_hash: string | null;
  /** JSON array of Rendition, smallest first; null when none were made */
  renditions: string | null;
}

/** A display copy of an uploaded image (see image.ts RENDITION_BOXES). */
export interface Rendition {
  url: string;
  width: number;
  height: number;
  size: number;
}

/** The renditions an uploads row lists, smallest first. */
export const renditionsOf = (row: Pick<UploadsTable, "renditions">): Rendition[] =>
  row.renditions ? (JSON.parse(row.renditions) as Rendition[]) : [];

export type UploadRow = Selectable<UploadsTable>;

export interface UploadsTables {
  uploads: UploadsTable;
}
