import type { UsersTables } from "../domain/users/table";
import type { SessionsTables } from "../domain/sessions/table";

/**
 * The whole database as Kysely sees it: each feature declares its tables in
 * domain/<feature>/table.ts and is listed here once.
 */
export interface Database extends UsersTables, SessionsTables {}
