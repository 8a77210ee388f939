import type { Kysely } from "kysely";

/**
 * Bot API ids moved above a base (src/domain/bots/ids.ts). Mentions by id that bots made
 * before are stored in messages with the full User they named: their ids move too, so the
 * same person is named by one id everywhere. The base is written out here, as it was when
 * this ran: a migration never changes meaning with later code.
 */
const BASE = 7_000_000_000;

/** Moves every stored text_mention id that is on the wrong side of the base by DELTA. */
async function shiftMentions(db: Kysely<any>, delta: number): Promise<void> {
  const rows = await db
    .selectFrom("messages")
    .select(["id", "entities"])
    .where("entities", "like", '%"text_mention"%')
    .execute();
  for (const row of rows as { id: number; entities: string }[]) {
    const entities = JSON.parse(row.entities) as { type?: string; user?: { id?: unknown } }[];
    let changed = false;
    for (const e of entities) {
      const id = e.user?.id;
      if (e.type !== "text_mention" || typeof id !== "number" || (delta > 0 ? id >= BASE : id < BASE)) continue;
      e.user!.id = id + delta;
      changed = true;
    }
    if (changed)
      await db
        .updateTable("messages")
        .set({ entities: JSON.stringify(entities) })
        .where("id", "=", row.id)
        .execute();
  }
}

export const up = (db: Kysely<any>): Promise<void> => shiftMentions(db, BASE);
export const down = (db: Kysely<any>): Promise<void> => shiftMentions(db, -BASE);
