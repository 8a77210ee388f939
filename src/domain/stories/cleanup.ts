import type { Db } from "../../db";
import { STORY_TTL_MS } from "./service";
import type { StoryRow } from "./table";

/**
 * Up to LIMIT stories nobody can see any more for longer than RETENTIONMS: expired (24 h
 * after creation) or deleted by their author, in both cases RETENTIONMS ago or earlier.
 */
export async function storiesPastRetention(
  db: Db,
  now: number,
  retentionMs: number,
  limit: number,
): Promise<Array<Pick<StoryRow, "id" | "media_url">>> {
  const cutoff = now - retentionMs;
  return (
    db
      .selectFrom("stories")
      .select(["id", "media_url"])
      // no ORDER BY: the OR is then answered from the two time indexes instead of a table scan
      .where((eb) => eb.or([eb("created_at", "<", cutoff - STORY_TTL_MS), eb("deleted_at", "<", cutoff)]))
      .limit(limit)
      .execute()
  );
}
