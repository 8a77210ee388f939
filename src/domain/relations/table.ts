import type { Generated } from "kysely";

/** follower_id follows followee_id; one row per pair. */
export interface FollowsTable {
  id: Generated<number>;
  follower_id: number;
  followee_id: number;
  created_at: number;
}

/** blocker_id blocked blocked_id: both vanish from each other's feed, search, comments and messages. */
export interface BlocksTable {
  id: Generated<number>;
  blocker_id: number;
  blocked_id: number;
  created_at: number;
}

/** muter_id hides muted_id from their own feed only. */
export interface MutesTable {
  id: Generated<number>;
  muter_id: number;
  muted_id: number;
  created_at: number;
}

export interface RelationsTables {
  follows: FollowsTable;
  blocks: BlocksTable;
  mutes: MutesTable;
}
