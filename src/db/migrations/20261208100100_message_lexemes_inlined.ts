import { sql, type Kysely } from "kysely";
import { currentSchemaOf, engineOf } from "../engine";
import { EMOJI, FOLDED, messageTsvector } from "./20261129040000_messages_fts";

/**
 * PostgreSQL: social_message_tsvector gives the same lexemes for every text, now as a function
 * PostgreSQL inlines into the index pass's statement (src/domain/search/message-index.ts). Its
 * emoji were read by a sub-select, which kept it from being inlined: every message paid a SQL
 * function's call, the larger part of what its lexemes cost. Now the emoji are the text's code
 * points left once every other is removed, split one to an element (array_to_tsvector drops
 * repeats), and only for a text that has one. The function is no longer STRICT, which would also
 * keep it from being inlined; a NULL text still gives NULL.
 */
export async function up(db: Kysely<any>): Promise<void> {
  if (engineOf(db) !== "postgres") return;
  const schema = await currentSchemaOf(db);
  await sql`CREATE OR REPLACE FUNCTION social_message_tsvector(body text)
    RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    SELECT to_tsvector('simple'::regconfig, ${schema}.social_unaccent(${FOLDED("body")}))
      || CASE WHEN body ~ ${sql.lit(EMOJI)}
        THEN array_to_tsvector(string_to_array(regexp_replace(body, ${sql.lit(`[^${EMOJI.slice(1)}`)}, '', 'g'), NULL))
        ELSE ''::tsvector END $$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) !== "postgres") return;
  await sql`CREATE OR REPLACE FUNCTION ${messageTsvector(await currentSchemaOf(db))}`.execute(db);
}
