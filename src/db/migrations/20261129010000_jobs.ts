import { sql, type Kysely } from "kysely";

/**
 * jobs: the durable queue of side effects that must not be lost (mail, push). A job is
 * written in the transaction of the change that asks for it, so once that change is
 * acknowledged the job is on disk; each node's worker claims due jobs under a lease, retries
 * failures with backoff and keeps the ones that ran out of attempts as dead letters.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("jobs")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("kind", "text", (c) => c.notNull())
    // the enqueuer's dedupe key: one queued job per kind and key
    .addColumn("key", "text")
    // JSON; emptied once done (a mail's link or code stays no longer than needed)
    .addColumn("payload", "text")
    // queued (waiting or due), running (claimed under a lease), done, dead
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull().defaultTo(0))
    // when a queued job is due (ms)
    .addColumn("run_at", "integer", (c) => c.notNull())
    // the claim of a running job: who holds it and until when (another node takes it over after)
    .addColumn("lease_token", "text")
    .addColumn("lease_until", "integer")
    .addColumn("last_error", "text")
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema.createIndex("jobs_by_state").on("jobs").columns(["state", "run_at"]).execute();
  await sql`create unique index jobs_queued_key on jobs (kind, key) where state = 'queued' and key is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable("jobs").ifExists().execute();
}
