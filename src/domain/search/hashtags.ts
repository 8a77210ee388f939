import { sql } from "kysely";
import type { Db } from "../../db";
import { normalizeHashtag } from "../posts/text";
import { decodeCursor, pageOf } from "../../lib/paging";
import { likePrefix } from "./people";

export interface HashtagHit {
  tag: string;
  postCount: number;
}

/** Hashtags in use that start with Q (with or without #), alphabetical, with their post counts. */
export async function searchHashtags(
  db: Db,
  q: string,
  opts: { cursor: string | null; limit: number },
): Promise<{ hashtags: HashtagHit[]; nextCursor: string | null }> {
  const after = decodeCursor(opts.cursor, "cursor", "name");
  const prefix = normalizeHashtag(q.trim());
  if (!prefix) return { hashtags: [], nextCursor: null };
  let query = db
    .selectFrom("hashtags")
    .innerJoin("post_hashtags", "post_hashtags.hashtag_id", "hashtags.id")
    .select(["hashtags.id", "hashtags.tag", (eb) => eb.fn.countAll<number>().as("n")])
    .where("hashtags.tag", "like", sql<string>`${likePrefix(prefix)} ESCAPE '\\'`)
    .groupBy("hashtags.id");
  // tags are unique: the tag alone places the cursor
  if (after !== null) query = query.where("hashtags.tag", ">", after.t);
  const rows = await query
    .orderBy("hashtags.tag")
    .limit(opts.limit + 1)
    .execute();
  const { items, nextCursor } = pageOf(rows, opts.limit, (r) => ({ t: r.tag, id: r.id }));
  return { hashtags: items.map((r) => ({ tag: r.tag, postCount: Number(r.n) })), nextCursor };
}
