import { defineService, type App } from "../../app";
import type { Db } from "../../db";
import { pubsub } from "../../cluster/pubsub";
import { AppError, fieldError, notFound } from "../../lib/errors";
import { safeEqual, sha256Hex } from "../../lib/crypto";
import { newCuid, randomToken } from "../../lib/ids";
import { precompiled, rowSplitter } from "../../db/compiled";
import { createUser, findUserById, findUserByUsername } from "../users/service";
import { USER_ROW_COLUMNS, type UserRow } from "../users/table";
import { accountIdOf, botApiUserId } from "./ids";
import type { BotPrivacy, BotRow } from "./table";
import { isActiveRole } from "../chats/table";

/** How many bots one person may own. */
export const MAX_BOTS_PER_OWNER = 20;
export const DESCRIPTION_MAX = 512;
export const SHORT_DESCRIPTION_MAX = 120;

export interface BotCommand {
  command: string;
  description: string;
}

export interface BotWithUser {
  bot: BotRow;
  user: UserRow;
}

/** A new token `<bot's Bot API id>:<secret>` and the hash that is stored in its place. */
function mintToken(botUserId: number): { token: string; hash: string } {
  const secret = randomToken(27);
  return { token: `${botApiUserId(botUserId)}:${secret}`, hash: sha256Hex(secret) };
}

/** Creates the bot's account and its bot record; the token is returned once and never stored. */
export async function createBot(
  app: App,
  input: { ownerId: number; username: string; name: string },
): Promise<BotWithUser & { token: string }> {
  const owner = await findUserById(app.db, input.ownerId);
  if (!owner) throw notFound("Owner not found");
  if (owner.is_bot) throw fieldError("owner", "a bot cannot own bots");
  const count = await app.db
    .selectFrom("bots")
    .select((eb) => eb.fn.countAll<number>().as("n"))
    .where("owner_id", "=", owner.id)
    .executeTakeFirstOrThrow();
  if (Number(count.n) >= MAX_BOTS_PER_OWNER)
    throw fieldError("username", `you can own at most ${MAX_BOTS_PER_OWNER} bots`);
  const name = input.name.trim();
  if (name.length === 0 || name.length > 64) throw fieldError("name", "must be 1 to 64 characters");
  const now = app.clock.now();
  const user = await createUser(app.db, now, { username: input.username, displayName: name, isBot: true });
  const { token, hash } = mintToken(user.id);
  const bot = await app.db
    .insertInto("bots")
    .values({
      cuid: newCuid(),
      user_id: user.id,
      owner_id: owner.id,
      token_secret_hash: hash,
      created_at: now,
      updated_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await app.hooks.emit("user:created", { userId: user.id });
  return { bot, user, token };
}

/** New token for a bot; the previous one stops working at once. */
export async function reissueToken(app: App, botId: number): Promise<string> {
  const bot = await app.db
    .selectFrom("bots")
    .select(["id", "user_id"])
    .where("id", "=", botId)
    .executeTakeFirstOrThrow();
  const { token, hash } = mintToken(bot.user_id);
  await app.db
    .updateTable("bots")
    .set({ token_secret_hash: hash, updated_at: app.clock.now() })
    .where("id", "=", bot.id)
    .execute();
  forgetBotIdentities(app);
  return token;
}

/** A retired bot's token hash: no secret hashes to it (a hash is 64 hex digits), so each of its tokens is unknown (401). */
const RETIRED_TOKEN_HASH = "retired";

/**
 * Stops every bot OWNER_ID made, for good, as that account is deleted (in the deletion's
 * transaction TX): disabled, and no token of theirs matches any more, so the Bot API answers
 * them 401 as it does an unknown token. Call forgetBotIdentities once it is committed.
 */
export async function retireBotsOf(tx: Db, ownerId: number, now: number): Promise<void> {
  await tx
    .updateTable("bots")
    .set({ token_secret_hash: RETIRED_TOKEN_HASH, disabled_at: now, updated_at: now })
    .where("owner_id", "=", ownerId)
    .execute();
}

/** The prefix is the bot's Bot API id, or its row id in tokens issued before public ids (see ids.ts). */
const TOKEN_RE = /^(\d{1,16}):([A-Za-z0-9_-]{10,100})$/;

/**
 * Resolves a token to its bot, or null when the shape, the bot or the secret is wrong.
 * The secret is compared by hash in constant time.
 */
export async function findBotByToken(db: Db, token: string): Promise<BotWithUser | null> {
  const m = TOKEN_RE.exec(token);
  if (!m) return null;
  const found = await findBotByUserId(db, accountIdOf(Number(m[1])));
  if (!found) return null;
  return safeEqual(found.bot.token_secret_hash, sha256Hex(m[2]!)) ? found : null;
}

/**
 * How long a resolved token is trusted without reading the database again. Every change
 * made through this module (reissue, enable/disable, privacy, description, commands,
 * webhook, allowed_updates) forgets all cached bots at once, so within this process those
 * take effect on the very next call; a commit by ANOTHER process (a `socialctl bot disable` /
 * `token --reissue` against the data dir of a running server) changes the database's
 * data_version, which every read compares, so those too take effect on the next call. What
 * remains bounded by this lifetime: this process's other features changing the bot's account
 * row (account disabled or deleted in-process).
 */
export const BOT_IDENTITY_TTL_MS = 1000;
const BOT_IDENTITY_MAX = 10_000;

interface IdentityCache {
  /** bumped by every bots write in this process; entries of an older generation are stale */
  generation: number;
  /** the database's data_version when the entries were read: another process's commit changes it */
  dataVersion: number;
  byUserId: Map<number, KeptIdentity>;
}

interface KeptIdentity {
  found: BotWithUser;
  generation: number;
  expiresAt: number;
  /** the token secret that last matched the kept bot's hash: the same secret again needs no hashing */
  verifiedSecret?: string;
}

/** Topic on which a node tells the others (cluster/pubsub.ts) that their cached bots are stale. */
const BOTS_CHANGED = "bots:changed";

const identities = defineService<IdentityCache>("bots:identity-cache", (app) => {
  const cache: IdentityCache = { generation: 0, dataVersion: app.storage.dataVersion(), byUserId: new Map() };
  const bus = pubsub(app);
  bus.subscribe(BOTS_CHANGED, () => clearIdentities(cache));
  bus.onResync(() => clearIdentities(cache));
  return cache;
});

const identityCache = (app: App): IdentityCache => app.services.get(identities);

function clearIdentities(cache: IdentityCache): void {
  cache.generation++;
  cache.byUserId.clear();
}

/**
 * Forgets every cached token resolution, on this node at once and on every other node as soon
 * as the message reaches it: call after any write to the bots table.
 */
export function forgetBotIdentities(app: App): void {
  clearIdentities(identityCache(app));
  void pubsub(app).publish(BOTS_CHANGED, "");
}

/**
 * findBotByToken for the Bot API's every call: a bot resolved in the last
 * BOT_IDENTITY_TTL_MS (real time) is answered from memory, the secret still compared in
 * constant time (see verified). Only found bots are cached (wrong tokens cannot fill memory).
 */
export async function resolveBotToken(app: App, token: string): Promise<BotWithUser | null> {
  const m = TOKEN_RE.exec(token);
  if (!m) return null;
  const userId = accountIdOf(Number(m[1]));
  const cache = identityCache(app);
  const now = performance.now();
  // another process committed (a `socialctl bot token --reissue`, `bot disable`, `user
  // disable`): nothing cached may be trusted, whichever rows it changed
  const version = app.storage.dataVersion();
  if (version !== cache.dataVersion) {
    clearIdentities(cache);
    cache.dataVersion = version;
  }
  const secret = m[2]!;
  const hit = cache.byUserId.get(userId);
  if (hit && hit.generation === cache.generation && hit.expiresAt > now) return verified(hit, secret);
  const generation = cache.generation;
  const found = await findBotByUserId(app.db, userId);
  if (!found) return null;
  const read: KeptIdentity = { found, generation, expiresAt: now + BOT_IDENTITY_TTL_MS };
  // a write that raced the read has bumped the generation: its result is not kept
  if (generation === cache.generation) {
    if (cache.byUserId.size >= BOT_IDENTITY_MAX) cache.byUserId.clear();
    cache.byUserId.set(userId, read);
  }
  return verified(read, secret);
}

/**
 * KEPT's bot when SECRET is its token's, compared in constant time: by hash, or with the secret
 * that matched it last (the process sees it on every call of the bot anyway; it goes with the
 * kept entry, on any write to bots or after BOT_IDENTITY_TTL_MS).
 */
function verified(kept: KeptIdentity, secret: string): BotWithUser | null {
  if (kept.verifiedSecret !== undefined && safeEqual(kept.verifiedSecret, secret)) return kept.found;
  if (!safeEqual(kept.found.bot.token_secret_hash, sha256Hex(secret))) return null;
  kept.verifiedSecret = secret;
  return kept.found;
}

/**
 * Why a Bot API call made with a token whose secret hashes to TOKEN_HASH is refused, given
 * the bot as it is now (FOUND, null when gone): 401 for an unknown or reissued token, 403 for
 * a bot blocked by moderation or disabled (itself or its account); null when it may go on.
 */
export function botAccessError(found: BotWithUser | null, tokenHash: string): AppError | null {
  if (!found || !safeEqual(found.bot.token_secret_hash, tokenHash))
    return new AppError(401, "BOT_TOKEN_INVALID", "The bot token is unknown or was reissued");
  if (found.bot.blocked_at) return new AppError(403, "BOT_BLOCKED", "The bot was blocked by moderation");
  if (found.bot.disabled_at || found.user.disabled_at)
    return new AppError(403, "BOT_DISABLED", "The bot was disabled by its owner");
  return null;
}

/** Every column of a bots row; the record type makes a column added to BotsTable fail to compile until listed here. */
const BOT_COLUMNS = Object.keys({
  id: 1,
  cuid: 1,
  user_id: 1,
  owner_id: 1,
  token_secret_hash: 1,
  disabled_at: 1,
  blocked_at: 1,
  privacy: 1,
  description: 1,
  short_description: 1,
  commands: 1,
  profile_json: 1,
  allowed_updates: 1,
  webhook_url: 1,
  webhook_secret: 1,
  webhook_last_error_date: 1,
  webhook_last_error_message: 1,
  created_at: 1,
  updated_at: 1,
} satisfies Record<keyof BotRow, 1>) as (keyof BotRow)[];
const BOT_PREFIX = "bot__";
/** A bot's row and its account's, from a row selecting users' columns and the bot's prefixed (botWithUserQuery, botMembersQuery). */
const botWithUserParts = rowSplitter<{ bot: BotRow; user: UserRow }>({
  bot: [BOT_PREFIX, BOT_COLUMNS],
  user: ["", USER_ROW_COLUMNS],
});

/**
 * A bot and its (not deleted) account in one statement, compiled once: this runs on every
 * Bot API call, and building the Kysely query cost more than SQLite takes to answer it. The
 * account comes as users.*, so columns other features add to users are always there.
 */
const botWithUserQuery = precompiled((db: Db, v: { userId: number }) =>
  db
    .selectFrom("bots")
    .innerJoin("users", "users.id", "bots.user_id")
    .select(USER_ROW_COLUMNS.map((c) => `users.${c}` as const))
    .select(BOT_COLUMNS.map((c) => `bots.${c} as ${BOT_PREFIX}${c}` as `bots.${typeof c}`))
    .where("bots.user_id", "=", v.userId)
    .where("users.deleted_at", "is", null),
);

export const findBotById = (db: Db, id: number): Promise<BotRow | undefined> =>
  db.selectFrom("bots").selectAll().where("id", "=", id).executeTakeFirst();

export async function findBotByUserId(db: Db, userId: number): Promise<BotWithUser | null> {
  const [row] = await botWithUserQuery(db, { userId });
  if (!row) return null;
  return botWithUserParts(row);
}

export async function findBotByUsername(db: Db, username: string): Promise<BotWithUser | null> {
  const user = await findUserByUsername(db, username);
  if (!user || !user.is_bot) return null;
  const bot = await db.selectFrom("bots").selectAll().where("user_id", "=", user.id).executeTakeFirst();
  return bot ? { bot, user } : null;
}

/** The bot named USERNAME if OWNER owns it; NOT_FOUND otherwise (others' bots are not revealed). */
export async function requireOwnedBot(db: Db, ownerId: number, username: string): Promise<BotWithUser> {
  const found = await findBotByUsername(db, username);
  if (!found || found.bot.owner_id !== ownerId) throw notFound("Bot not found");
  return found;
}

export async function listBotsOfOwner(db: Db, ownerId: number): Promise<BotWithUser[]> {
  return attachUsers(
    db,
    await db.selectFrom("bots").selectAll().where("owner_id", "=", ownerId).orderBy("id").execute(),
  );
}

export async function listAllBots(db: Db): Promise<BotWithUser[]> {
  return attachUsers(db, await db.selectFrom("bots").selectAll().orderBy("id").execute());
}

// every message stored asks this (the bots' updates): one statement, compiled once
const botMembersQuery = precompiled((db: Db, v: { conversationId: number; exclude: number }) =>
  db
    .selectFrom("conversation_members as m")
    .innerJoin("bots", "bots.user_id", "m.user_id")
    .innerJoin("users", "users.id", "bots.user_id")
    .select(USER_ROW_COLUMNS.map((c) => `users.${c}` as const))
    .select(BOT_COLUMNS.map((c) => `bots.${c} as ${BOT_PREFIX}${c}` as `bots.${typeof c}`))
    .where("m.conversation_id", "=", v.conversationId)
    .where(isActiveRole("m.role"))
    .where("m.user_id", "!=", v.exclude)
    // one order everywhere: a message to a group queues an update per bot, each under its bot's
    // queue lock (Storage.lockQueue), and two groups sharing two bots must not take them crosswise
    .orderBy("bots.id"),
);

/** Bots currently in the conversation with their accounts, except EXCLUDE. One statement: most chats have none. */
export async function botMembersOf(db: Db, conversationId: number, exclude: number): Promise<BotWithUser[]> {
  return (await botMembersQuery(db, { conversationId, exclude })).map(botWithUserParts);
}

/** Pairs bots with their accounts in one query. */

export async function attachUsers(db: Db, bots: BotRow[]): Promise<BotWithUser[]> {
  if (bots.length === 0) return [];
  const users = await db
    .selectFrom("users")
    .selectAll()
    .where(
      "id",
      "in",
      bots.map((b) => b.user_id),
    )
    .execute();
  const byId = new Map(users.map((u) => [u.id, u]));
  return bots.flatMap((bot) => {
    const user = byId.get(bot.user_id);
    return user ? [{ bot, user }] : [];
  });
}

export interface BotSettingsPatch {
  enabled?: boolean;
  privacy?: BotPrivacy;
  description?: string;
  shortDescription?: string;
  commands?: BotCommand[];
}

/** Applies owner or Bot API settings; each field is validated with the Bot API's limits. */
export async function updateBotSettings(app: App, botId: number, patch: BotSettingsPatch): Promise<BotRow> {
  const set: Record<string, unknown> = { updated_at: app.clock.now() };
  if (patch.enabled !== undefined) set.disabled_at = patch.enabled ? null : app.clock.now();
  if (patch.privacy !== undefined) {
    if (patch.privacy !== "all" && patch.privacy !== "commands")
      throw fieldError("privacy", 'must be "all" or "commands"');
    set.privacy = patch.privacy;
  }
  if (patch.description !== undefined) {
    if (patch.description.length > DESCRIPTION_MAX)
      throw fieldError("description", `must be at most ${DESCRIPTION_MAX} characters`);
    set.description = patch.description;
  }
  if (patch.shortDescription !== undefined) {
    if (patch.shortDescription.length > SHORT_DESCRIPTION_MAX)
      throw fieldError("shortDescription", `must be at most ${SHORT_DESCRIPTION_MAX} characters`);
    set.short_description = patch.shortDescription;
  }
  if (patch.commands !== undefined) set.commands = JSON.stringify(patch.commands);
  const bot = await app.db
    .updateTable("bots")
    .set(set)
    .where("id", "=", botId)
    .returningAll()
    .executeTakeFirstOrThrow();
  forgetBotIdentities(app);
  return bot;
}

export const botCommands = (bot: Pick<BotRow, "commands">): BotCommand[] => JSON.parse(bot.commands) as BotCommand[];

/** Disables or enables a bot by username (CLI). */
export async function setBotEnabledByUsername(app: App, username: string, enabled: boolean): Promise<BotWithUser> {
  const found = await findBotByUsername(app.db, username);
  if (!found) throw new AppError(404, "NOT_FOUND", `Bot ${username} not found`);
  const bot = await updateBotSettings(app, found.bot.id, { enabled });
  return { bot, user: found.user };
}

/**
 * Blocks a bot by moderation, or lifts the block: a blocked bot's token is refused with 403
 * "blocked by moderation", it gets no updates and its public card is gone. Its owner cannot
 * lift this (unlike disabling).
 */
export async function setBotBlocked(app: App, botId: number, blocked: boolean): Promise<BotRow> {
  const now = app.clock.now();
  const bot = await app.db
    .updateTable("bots")
    .set({ blocked_at: blocked ? now : null, updated_at: now })
    .where("id", "=", botId)
    .returningAll()
    .executeTakeFirstOrThrow();
  forgetBotIdentities(app);
  return bot;
}

/** Sets (url) or removes (null) the bot's webhook; errors and retry delays of the previous address are forgotten. */
export async function setWebhookConfig(
  app: App,
  botId: number,
  webhook: { url: string; secret: string | null } | null,
): Promise<void> {
  await app.db
    .updateTable("bots")
    .set({
      webhook_url: webhook?.url ?? null,
      webhook_secret: webhook?.secret ?? null,
      webhook_last_error_date: null,
      webhook_last_error_message: null,
      updated_at: app.clock.now(),
    })
    .where("id", "=", botId)
    .execute();
  forgetBotIdentities(app);
  // a new address gets the queue at once: backoff earned by the old one does not carry over
  await app.db
    .updateTable("bot_updates")
    .set({ attempts: 0, next_attempt_at: 0 })
    .where("bot_id", "=", botId)
    .where("delivered_at", "is", null)
    .execute();
}

/** Records a failed webhook delivery for getWebhookInfo. */
export async function noteWebhookError(app: App, botId: number, message: string): Promise<void> {
  await app.db
    .updateTable("bots")
    .set({ webhook_last_error_date: app.clock.now(), webhook_last_error_message: message.slice(0, 200) })
    .where("id", "=", botId)
    .execute();
  forgetBotIdentities(app);
}
