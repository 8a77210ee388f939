import { sql } from "kysely";
import { loadConfig } from "../config";
import { dbPath } from "../config/layout";
import { openInstanceStorage, type Db, type Storage } from "../db";

/**
 * Runs TEXT, with `?` for each of PARAMS, on either engine (Kysely numbers the placeholders as
 * the dialect wants them): the rows. For tests that write or read rows past the domain.
 */
export async function queryRows<R = Record<string, any>>(db: Db, text: string, ...params: unknown[]): Promise<R[]> {
  const parts = text.split("?");
  const strings = Object.assign([...parts], { raw: [...parts] }) as unknown as TemplateStringsArray;
  return (await sql<R>(strings, ...params).execute(db)).rows;
}

/** The first row of queryRows, or null. */
export const queryRow = async <R = Record<string, any>>(
  db: Db,
  text: string,
  ...params: unknown[]
): Promise<R | null> => (await queryRows<R>(db, text, ...params))[0] ?? null;

/** A connection of its own to the instance's database in DATADIR, as another process (`socialctl`, a restarted server) opens it. */
export function openOtherConnection(dataDir: string): Storage {
  const config = loadConfig(dataDir);
  return openInstanceStorage(config["database.url"], dbPath(dataDir), { poolSize: config["database.poolSize"] });
}
