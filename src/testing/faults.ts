import { sql } from "kysely";
import type { Db } from "../db";

/**
 * Runs RUN while every insert into TABLE fails ("injected fault"), then removes the fault.
 * TABLE may carry a trigger condition: "messages WHEN NEW.kind = 'system'". The fault lives
 * in the database (a trigger), so a test using it does not depend on how the code is built.
 */
export async function withInsertFault<T>(db: Db, table: string, run: () => Promise<T>): Promise<T> {
  await sql
    .raw(`CREATE TRIGGER inject_fault BEFORE INSERT ON ${table} BEGIN SELECT RAISE(ABORT, 'injected fault'); END`)
    .execute(db);
  try {
    return await run();
  } finally {
    await sql`DROP TRIGGER IF EXISTS inject_fault`.execute(db);
  }
}
