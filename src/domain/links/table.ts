import type { Selectable } from "kysely";

/** What the server read of a page, by its URL, until it expires (see the link_previews migration). */
export interface LinkPreviewsTable {
  url: string;
  /** JSON PagePreview; null when the page could not be read or gave nothing to show */
  preview: string | null;
  fetched_at: number;
  expires_at: number;
}

export type LinkPreviewRow = Selectable<LinkPreviewsTable>;

export interface LinksTables {
  link_previews: LinkPreviewsTable;
}
