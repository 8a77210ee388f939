import type { Migration } from "kysely";
import * as m20261122000100 from "./20261122000100_users_sessions";

/**
 * Every migration, imported statically: a compiled binary has no migrations folder to read.
 * Names are YYYYMMDDHHMMSS_name; add one line per new migration, never edit an old one.
 */
export const migrations: Record<string, Migration> = {
  "20261122000100_users_sessions": m20261122000100,
};
