import type { Kysely, Migration } from "kysely";
import { VERSION } from "../config/layout";

/**
 * A migration that leaves a schema code older than it cannot use (a column it writes dropped
 * or renamed, a constraint it would violate) exports `breaksOlderCode = true`; applying it
 * raises the database's recorded minimum to its name. Additive migrations (a new table, a
 * nullable column, an index) leave older nodes working and declare nothing.
 */
export interface GuardedMigration extends Migration {
  readonly breaksOlderCode?: boolean;
}

/** The oldest code that may use a database: the newest breaking migration and the socialctl that applied it. */
export interface SchemaMinimum {
  schema: string;
  version: string;
}

/** The compatibility level of code that knows NAMES: its newest migration (names start with their time). */
export function schemaLevel(names: Iterable<string>): string {
  let newest = "";
  for (const name of names) if (name > newest) newest = name;
  return newest;
}

/** The database's recorded minimum; null when none was recorded or the guard's table is not there yet. */
export async function readSchemaMinimum(db: Kysely<any>): Promise<SchemaMinimum | null> {
  try {
    const row = await db
      .selectFrom("schema_guard")
      .select(["min_schema", "min_version"])
      .where("id", "=", 1)
      .executeTakeFirst();
    return row ? { schema: row.min_schema as string, version: row.min_version as string } : null;
  } catch {
    return null;
  }
}

/** Raises the recorded minimum to NAME (never lowers it), in the migration's own transaction. */
export async function recordBreakingMigration(db: Kysely<any>, name: string, now = Date.now()): Promise<void> {
  const current = await readSchemaMinimum(db);
  if (current && current.schema >= name) return;
  const values = { min_schema: name, min_version: VERSION, updated_at: now };
  await db
    .insertInto("schema_guard")
    .values({ id: 1, ...values })
    .onConflict((oc) => oc.column("id").doUpdateSet(values))
    .execute();
}

/**
 * Why code at LEVEL must not use a database whose minimum is MINIMUM, in one line naming both
 * versions and what to do; null when it may.
 */
export function schemaIncompatibility(minimum: SchemaMinimum | null, level: string): string | null {
  if (!minimum || minimum.schema <= level) return null;
  return (
    `the database was migrated by socialctl ${minimum.version} past what this socialctl ${VERSION} can use ` +
    `(it requires schema ${minimum.schema}, this binary knows up to ${level}): ` +
    `run socialctl ${minimum.version} or newer on this node`
  );
}

/** Thrown before anything is migrated or served by a binary too old for its database. */
export class SchemaTooNewError extends Error {
  override readonly name = "SchemaTooNewError";
}
