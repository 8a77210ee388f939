import { sql, type Kysely } from "kysely";
import { engineOf } from "../engine";

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable("conversations")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("type", "text", (c) => c.notNull())
    .addColumn("title", "text")
    .addColumn("photo_url", "text")
    // "minUserId:maxUserId" for private chats: one chat per pair
    .addColumn("private_key", "text", (c) => c.unique())
    .addColumn("invite_code", "text", (c) => c.unique())
    .addColumn("created_by", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("last_seq", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("last_message_at", "integer")
    // newest activity (creation or last message): the chat list's sort key
    .addColumn("activity_at", "integer", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("conversation_members")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("conversation_id", "integer", (c) => c.notNull().references("conversations.id").onDelete("cascade"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("role", "text", (c) => c.notNull())
    .addColumn("rights", "text")
    .addColumn("joined_at", "integer", (c) => c.notNull())
    .addColumn("last_read_seq", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("start_label", "text")
    .addColumn("updated_at", "integer", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("conversation_members_pair")
    .unique()
    .on("conversation_members")
    .columns(["conversation_id", "user_id"])
    .execute();
  await db.schema
    .createIndex("conversation_members_user")
    .on("conversation_members")
    .columns(["user_id", "role"])
    .execute();

  await db.schema
    .createTable("messages")
    .addColumn("id", "integer", (c) => c.primaryKey().autoIncrement())
    .addColumn("cuid", "text", (c) => c.notNull().unique())
    .addColumn("conversation_id", "integer", (c) => c.notNull().references("conversations.id").onDelete("cascade"))
    .addColumn("seq", "integer", (c) => c.notNull())
    .addColumn("sender_id", "integer", (c) => c.notNull().references("users.id"))
    .addColumn("kind", "text", (c) => c.notNull().defaultTo("user"))
    .addColumn("content", "text", (c) => c.notNull().defaultTo(""))
    .addColumn("entities", "text")
    .addColumn("media", "text")
    .addColumn("reply_to_seq", "integer")
    .addColumn("reply_markup", "text")
    .addColumn("invoice", "text")
    .addColumn("extra", "text")
    .addColumn("system", "text")
    .addColumn("forwarded_from", "text")
    .addColumn("client_message_id", "text")
    .addColumn("pinned", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addColumn("edited_at", "integer")
    .addColumn("deleted_at", "integer")
    .execute();
  await db.schema
    .createIndex("messages_conversation_seq")
    .unique()
    .on("messages")
    .columns(["conversation_id", "seq"])
    .execute();
  await sql`CREATE UNIQUE INDEX messages_client_id ON messages (conversation_id, sender_id, client_message_id) WHERE client_message_id IS NOT NULL`.execute(
    db,
  );

  await db.schema
    .createTable("message_reactions")
    .addColumn("message_id", "integer", (c) => c.notNull().references("messages.id").onDelete("cascade"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addColumn("emoji", "text", (c) => c.notNull())
    .addColumn("created_at", "integer", (c) => c.notNull())
    .addPrimaryKeyConstraint("message_reactions_pk", ["message_id", "user_id"])
    .execute();

  // "delete for me": the message stays for everyone else
  await db.schema
    .createTable("message_hidden")
    .addColumn("message_id", "integer", (c) => c.notNull().references("messages.id").onDelete("cascade"))
    .addColumn("user_id", "integer", (c) => c.notNull().references("users.id").onDelete("cascade"))
    .addPrimaryKeyConstraint("message_hidden_pk", ["message_id", "user_id"])
    .execute();

  // the references of star_invoices the stars migration (sorted earlier) left to this one
  if (engineOf(db) === "postgres") {
    await sql`ALTER TABLE star_invoices ADD CONSTRAINT star_invoices_message_fk FOREIGN KEY (message_id) REFERENCES messages (id) ON DELETE CASCADE`.execute(
      db,
    );
    await sql`ALTER TABLE star_invoices ADD CONSTRAINT star_invoices_conversation_fk FOREIGN KEY (conversation_id) REFERENCES conversations (id) ON DELETE CASCADE`.execute(
      db,
    );
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (engineOf(db) === "postgres") {
    await sql`ALTER TABLE star_invoices DROP CONSTRAINT IF EXISTS star_invoices_message_fk`.execute(db);
    await sql`ALTER TABLE star_invoices DROP CONSTRAINT IF EXISTS star_invoices_conversation_fk`.execute(db);
  }
  await db.schema.dropTable("message_hidden").execute();
  await db.schema.dropTable("message_reactions").execute();
  await db.schema.dropTable("messages").execute();
  await db.schema.dropTable("conversation_members").execute();
  await db.schema.dropTable("conversations").execute();
}
