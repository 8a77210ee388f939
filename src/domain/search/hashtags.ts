import type { Db } from "../../db";
import { normalizeHashtag } from "../posts/text";
import { decodeCursor, pageOf } from "../../lib/paging";
import { prefixBounds, startsWith, type PrefixBounds } from "./people";
import { ShapedQuery } from "../../db/compiled";
import { literalLimit } from "../posts/keyset";

export interface HashtagHit {
  tag: string;
  postCount: number;
}

/** A page of the tags in use that start with a prefix, after a tag (tags are unique: the tag alone places the cursor), compiled once per shape. */
const hashtagPrefixPages = new ShapedQuery(
  (db: Db, v: PrefixBounds & { after: string }, shape: { cursor: boolean; limit: number }) =>
    db
      .selectFrom("hashtags")
      .select(["id", "tag", "post_count"])
      .where(startsWith(db, "tag", v))
      .where("post_count", ">", 0)
      .$if(shape.cursor, (q) => q.where("tag", ">", v.after))
      .orderBy("tag")
      .limit(literalLimit(shape.limit + 1)),
  (s) => `${s.cursor ? 1 : 0}:${s.limit}`,
);

/** Hashtags in use that start with Q (with or without #), alphabetical, with their post counts (an index range, no counting). */
export async function searchHashtags(
  db: Db,
  q: string,
  opts: { cursor: string | null; limit: number },
): Promise<{ hashtags: HashtagHit[]; nextCursor: string | null }> {
  const after = decodeCursor(opts.cursor, "cursor", "name");
  const prefix = normalizeHashtag(q.trim());
  if (!prefix) return { hashtags: [], nextCursor: null };
  const rows = await hashtagPrefixPages.execute(
    db,
    { cursor: after !== null, limit: opts.limit },
    { ...prefixBounds(prefix), after: after?.t ?? "" },
  );
  const { items, nextCursor } = pageOf(rows, opts.limit, (r) => ({ t: r.tag, id: r.id }));
  return { hashtags: items.map((r) => ({ tag: r.tag, postCount: Number(r.post_count) })), nextCursor };
}
