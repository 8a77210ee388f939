import { sql } from "kysely";
import type { Db } from "../db";
import { forEngine } from "../db/engine";

/**
 * Runs RUN while every EVENT (an insert, update or deletion) on TABLE fails ("injected fault"),
 * then removes the fault. TABLE may carry a trigger condition: "messages WHEN NEW.kind =
 * 'system'". The fault lives in the database (a trigger), so a test using it does not depend on
 * how the code is built.
 */
export async function withWriteFault<T>(
  db: Db,
  event: "INSERT" | "UPDATE" | "DELETE",
  table: string,
  run: () => Promise<T>,
): Promise<T> {
  const [name, condition] = table.split(/ WHEN /);
  const faults = {
    sqlite: {
      create: `CREATE TRIGGER inject_fault BEFORE ${event} ON ${table} BEGIN SELECT RAISE(ABORT, 'injected fault'); END`,
      drop: "DROP TRIGGER IF EXISTS inject_fault",
    },
    postgres: {
      create: `CREATE OR REPLACE FUNCTION inject_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$;
        CREATE TRIGGER inject_fault BEFORE ${event} ON ${name} FOR EACH ROW ${condition ? `WHEN (${condition})` : ""} EXECUTE FUNCTION inject_fault()`,
      drop: `DROP TRIGGER IF EXISTS inject_fault ON ${name}`,
    },
  };
  const fault = forEngine(db, faults);
  for (const statement of fault.create.split(/;\n/)) await sql.raw(statement).execute(db);
  try {
    return await run();
  } finally {
    await sql.raw(fault.drop).execute(db);
  }
}

/** withWriteFault for inserts into TABLE. */
export const withInsertFault = <T>(db: Db, table: string, run: () => Promise<T>): Promise<T> =>
  withWriteFault(db, "INSERT", table, run);
