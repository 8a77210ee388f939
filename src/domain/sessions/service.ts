import type { Db } from "../../db";
import type { CacheStamps } from "../../cache/stamps";
import { precompiled } from "../../db/compiled";
import { AppError } from "../../lib/errors";
import { safeEqual, sha256Hex } from "../../lib/crypto";
import { newCuid, randomToken } from "../../lib/ids";
import { type UserRow, USER_COUNTER_COLUMNS } from "../users/table";
import type { SessionRow } from "./table";

export interface SessionTtls {
  accessTtlMs: number;
  refreshTtlMs: number;
}

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  accessExpiresAt: number;
  refreshExpiresAt: number;
}

/** Racing requests that present the refresh token just rotated away are accepted this long. */
const ROTATION_GRACE_MS = 30_000;
/** last_seen_at is written at most this often per session, to keep reads free of writes. */
const LAST_SEEN_EVERY_MS = 60_000;

const makeToken = (sessionCuid: string) => {
  const secret = randomToken(24);
  return { token: `${sessionCuid}.${secret}`, hash: sha256Hex(secret) };
};

/** A token's two parts, `<session cuid>.<secret>`, or null when it has not that shape. */
function tokenParts(token: string | undefined): { sessionCuid: string; secret: string } | null {
  if (!token) return null;
  const dot = token.indexOf(".");
  if (dot <= 0 || dot === token.length - 1 || token.length > 200) return null;
  return { sessionCuid: token.slice(0, dot), secret: token.slice(dot + 1) };
}

function splitToken(token: string | undefined): { sessionCuid: string; hash: string } | null {
  const parts = tokenParts(token);
  return parts && { sessionCuid: parts.sessionCuid, hash: sha256Hex(parts.secret) };
}

/** Opens a session (a signed-in device) and returns its tokens. */
export async function createSession(
  db: Db,
  now: number,
  ttls: SessionTtls,
  input: { userId: number; userAgent: string; ip: string; deviceId?: string | null },
): Promise<{ session: SessionRow; tokens: IssuedTokens }> {
  const cuid = newCuid();
  const access = makeToken(cuid);
  const refresh = makeToken(cuid);
  const session = await db
    .insertInto("sessions")
    .values({
      cuid,
      user_id: input.userId,
      access_hash: access.hash,
      access_expires_at: now + ttls.accessTtlMs,
      refresh_hash: refresh.hash,
      refresh_expires_at: now + ttls.refreshTtlMs,
      user_agent: input.userAgent.slice(0, 512),
      ip: input.ip,
      device_id: input.deviceId ?? null,
      created_at: now,
      last_seen_at: now,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return {
    session,
    tokens: {
      accessToken: access.token,
      refreshToken: refresh.token,
      accessExpiresAt: session.access_expires_at,
      refreshExpiresAt: session.refresh_expires_at,
    },
  };
}

export interface Authenticated {
  user: UserRow;
  session: SignedInSession;
  /** the session's device is banned: the caller answers DEVICE_BANNED */
  deviceBanned: boolean;
  /** set when the access token had expired and the session was renewed: send new cookies */
  renewed?: IssuedTokens;
}

/** The columns of a session that signing a request in reads (its user agent, IP and device are not). */
export type SignedInSession = Pick<
  SessionRow,
  | "id"
  | "cuid"
  | "user_id"
  | "access_hash"
  | "access_expires_at"
  | "refresh_hash"
  | "prev_refresh_hash"
  | "refresh_expires_at"
  | "refreshed_at"
  | "last_seen_at"
  | "revoked_at"
>;

const SESSION_COLUMNS = Object.keys({
  id: 1,
  cuid: 1,
  user_id: 1,
  access_hash: 1,
  access_expires_at: 1,
  refresh_hash: 1,
  prev_refresh_hash: 1,
  refresh_expires_at: 1,
  refreshed_at: 1,
  last_seen_at: 1,
  revoked_at: 1,
} satisfies Record<keyof SignedInSession, 1>) as (keyof SignedInSession)[];
const SESSION_PREFIX = "session__";
const BANNED = "banned_device_id";

/**
 * The session, its account (users.*, so columns other features add are always there) and
 * whether its device is banned, in one statement compiled once: this runs on every signed-in
 * request, where building the Kysely query cost more than SQLite takes to answer it.
 */
const sessionWithUserQuery = precompiled((db: Db, v: { cuid: string }) =>
  db
    .selectFrom("sessions")
    .innerJoin("users", "users.id", "sessions.user_id")
    .leftJoin("banned_devices", "banned_devices.device_id", "sessions.device_id")
    .selectAll("users")
    .select(SESSION_COLUMNS.map((c) => `sessions.${c} as ${SESSION_PREFIX}${c}` as `sessions.${typeof c}`))
    .select(`banned_devices.id as ${BANNED}`)
    .where("sessions.cuid", "=", v.cuid),
);

interface LoadedSession {
  session: SignedInSession;
  user: UserRow;
  deviceBanned: boolean;
}

const COUNTERS: ReadonlySet<string> = new Set(USER_COUNTER_COLUMNS);

/**
 * The joined row as its three parts, in one pass over its columns: this runs on every signed-in
 * request (a rest spread and a generic prefix split of the wide row cost several times as much).
 */
function toLoadedSession(row: Record<string, unknown>): LoadedSession {
  const user: Record<string, unknown> = {};
  for (const key in row)
    if (key !== BANNED && !key.startsWith(SESSION_PREFIX) && !COUNTERS.has(key)) user[key] = row[key];
  const r = row as { [K in keyof SignedInSession as `${typeof SESSION_PREFIX}${K}`]: SignedInSession[K] };
  const session: SignedInSession = {
    id: r.session__id,
    cuid: r.session__cuid,
    user_id: r.session__user_id,
    access_hash: r.session__access_hash,
    access_expires_at: r.session__access_expires_at,
    refresh_hash: r.session__refresh_hash,
    prev_refresh_hash: r.session__prev_refresh_hash,
    refresh_expires_at: r.session__refresh_expires_at,
    refreshed_at: r.session__refreshed_at,
    last_seen_at: r.session__last_seen_at,
    revoked_at: r.session__revoked_at,
  };
  return { session, user: user as UserRow, deviceBanned: row[BANNED] !== null };
}

/** A session kept by a SessionCache, with the access-token secret last found to match it. */
interface CachedSession {
  loaded: LoadedSession;
  verifiedSecret?: string;
}

/** Sessions kept by a SessionCache at most; past this it starts again empty. */
const SESSION_CACHE_MAX = 10_000;

/**
 * Sessions as last read (account and device ban included), kept under the `sessions` cache stamp
 * (src/cache/stamps.ts): triggers raise it on every write to sessions, users and banned_devices
 * but a session's last-seen time and address and an account's counters (src/cache/registry.ts),
 * whoever writes, so revocation, sign-out, rotation, a ban, a disabled or edited account, by
 * this process, the CLI or another node, make the next request read the database again. The
 * last-seen time this process writes is set on the cached copy (seen). Expiry is checked
 * against the clock on every request as before.
 */
export class SessionCache {
  #stamp = NaN;
  readonly #byCuid = new Map<string, CachedSession>();

  constructor(private readonly stamps: CacheStamps) {}

  /** CUID's session from memory, when the stamp has not moved since it was read; else undefined (see load). */
  #peek(sessionCuid: string): CachedSession | undefined {
    if (this.stamps.peek("sessions") !== this.#stamp) return undefined;
    return this.#byCuid.get(sessionCuid);
  }

  /**
   * CUID's cached session when SECRET is its live access token's secret: the secret that last
   * matched the cached access_hash is compared as it is, so only a session's first request after a
   * read (or a different token) hashes it. Any write to the session (renewal, sign-out) drops the
   * cached copy and the remembered secret with it.
   */
  peekVerified(sessionCuid: string, secret: string): LoadedSession | undefined {
    const cached = this.#peek(sessionCuid);
    if (!cached) return undefined;
    if (cached.verifiedSecret !== undefined && safeEqual(cached.verifiedSecret, secret)) return cached.loaded;
    if (!safeEqual(cached.loaded.session.access_hash, sha256Hex(secret))) return undefined;
    // the process sees this secret on every request of the session anyway; cached no longer than the session
    cached.verifiedSecret = secret;
    return cached.loaded;
  }

  /**
   * CUID's session was seen at NOW, and this process wrote that (last_seen_at raises no stamp, so
   * the cached copy must show it, or every request would write it again).
   */
  seen(sessionCuid: string, now: number): void {
    const hit = this.#byCuid.get(sessionCuid);
    if (!hit) return;
    const session = Object.freeze({ ...hit.loaded.session, last_seen_at: now });
    this.#byCuid.set(sessionCuid, { ...hit, loaded: { ...hit.loaded, session } });
  }

  /** CUID's session, from memory if read since the stamp last moved, else from DB (and cached, outside a transaction). */
  async load(db: Db, sessionCuid: string): Promise<LoadedSession | null> {
    // a transaction's reads may yet roll back: read, never cached
    if (db.isTransaction) return readSession(db, sessionCuid);
    // read before the session: a write made while it is read raises it past what is cached
    const stamp = await this.stamps.read("sessions", db);
    if (stamp !== this.#stamp) {
      this.#byCuid.clear();
      this.#stamp = stamp;
    }
    const hit = this.#byCuid.get(sessionCuid);
    if (hit) return hit.loaded;
    const loaded = await readSession(db, sessionCuid);
    // only sessions that exist: made-up tokens cannot fill memory
    if (!loaded) return null;
    // the stamp moved while the session was read: what was read may be older than it
    if (stamp !== this.#stamp) return loaded;
    if (this.#byCuid.size >= SESSION_CACHE_MAX) this.#byCuid.clear();
    // shared by every request of the session until the next write: nobody may change them in place
    Object.freeze(loaded.user);
    Object.freeze(loaded.session);
    this.#byCuid.set(sessionCuid, { loaded });
    return loaded;
  }
}

async function readSession(db: Db, sessionCuid: string): Promise<LoadedSession | null> {
  const [row] = await sessionWithUserQuery(db, { cuid: sessionCuid });
  return row ? toLoadedSession(row as Record<string, unknown>) : null;
}

/**
 * The session behind a live ACCESS token when CACHE holds it and answering needs no write (no
 * renewal, no last-seen update): what authenticate would answer, without a promise or a
 * statement. Undefined when authenticate must decide.
 */
export function authenticateCached(
  now: number,
  access: string | undefined,
  cache: SessionCache,
): Authenticated | undefined {
  const token = tokenParts(access);
  if (!token) return undefined;
  const loaded = cache.peekVerified(token.sessionCuid, token.secret);
  if (!loaded) return undefined;
  const { session, user, deviceBanned } = loaded;
  if (
    session.revoked_at ||
    session.access_expires_at <= now ||
    user.deleted_at !== null ||
    now - session.last_seen_at > LAST_SEEN_EVERY_MS
  )
    return undefined;
  return { user, session, renewed: undefined, deviceBanned };
}

/**
 * Resolves the session behind the cookies. A live access token is enough; an expired one
 * with a live refresh token renews both (rotation). Presenting any refresh token of the
 * session other than the current one (or the one rotated away within the grace window for
 * racing requests) means it was copied: the session is revoked.
 * Returns null when there is no usable session. CACHE (SQLite only) answers the read of a
 * session unchanged since it was last read.
 */
export async function authenticate(
  db: Db,
  now: number,
  ttls: SessionTtls,
  cookies: { access?: string; refresh?: string; ip: string },
  cache?: SessionCache,
): Promise<Authenticated | null> {
  const loadSession = (cuid: string) => (cache ? cache.load(db, cuid) : readSession(db, cuid));
  const access = splitToken(cookies.access);
  if (access) {
    const loaded = await loadSession(access.sessionCuid);
    const session = loaded?.session;
    if (
      session &&
      !session.revoked_at &&
      session.access_expires_at > now &&
      safeEqual(session.access_hash, access.hash)
    ) {
      return withUser(db, now, loaded!, session, undefined, cookies.ip, cache);
    }
    if (session && signedOutByDisable(loaded!, access.hash)) throw accountDisabled();
  }
  const refresh = splitToken(cookies.refresh);
  if (!refresh) return null;
  const loaded = await loadSession(refresh.sessionCuid);
  if (!loaded) return null;
  const session = loaded.session;
  if (signedOutByDisable(loaded, refresh.hash)) throw accountDisabled();
  if (session.revoked_at || session.refresh_expires_at <= now) return null;
  if (safeEqual(session.refresh_hash, refresh.hash)) {
    const newAccess = makeToken(session.cuid);
    const newRefresh = makeToken(session.cuid);
    // compare-and-set on the hash so two racing renewals cannot both rotate
    const updated = await db
      .updateTable("sessions")
      .set({
        access_hash: newAccess.hash,
        access_expires_at: now + ttls.accessTtlMs,
        prev_refresh_hash: session.refresh_hash,
        refresh_hash: newRefresh.hash,
        refresh_expires_at: now + ttls.refreshTtlMs,
        refreshed_at: now,
        last_seen_at: now,
        ip: cookies.ip,
      })
      .where("id", "=", session.id)
      .where("refresh_hash", "=", session.refresh_hash)
      .returningAll()
      .executeTakeFirst();
    if (!updated) return withUser(db, now, loaded, session, undefined, cookies.ip, cache);
    return withUser(
      db,
      now,
      loaded,
      updated,
      {
        accessToken: newAccess.token,
        refreshToken: newRefresh.token,
        accessExpiresAt: updated.access_expires_at,
        refreshExpiresAt: updated.refresh_expires_at,
      },
      cookies.ip,
      cache,
    );
  }
  const justRotated = session.prev_refresh_hash && safeEqual(session.prev_refresh_hash, refresh.hash);
  if (justRotated && session.refreshed_at && now - session.refreshed_at < ROTATION_GRACE_MS) {
    return withUser(db, now, loaded, session, undefined, cookies.ip, cache);
  }
  // Any other refresh token naming this session was rotated away before (by its owner or by a
  // thief who renewed it, perhaps several times since): two parties hold the session, so it ends.
  await revokeSession(db, now, session.id);
  return null;
}

async function withUser(
  db: Db,
  now: number,
  { user, deviceBanned }: LoadedSession,
  session: SignedInSession,
  renewed: IssuedTokens | undefined,
  ip: string,
  cache: SessionCache | undefined,
): Promise<Authenticated | null> {
  if (user.deleted_at !== null) return null;
  if (!renewed && now - session.last_seen_at > LAST_SEEN_EVERY_MS) {
    await db.updateTable("sessions").set({ last_seen_at: now, ip }).where("id", "=", session.id).execute();
    cache?.seen(session.cuid, now);
  }
  return { user, session, renewed, deviceBanned };
}

export async function revokeSession(db: Db, now: number, sessionId: number): Promise<void> {
  await db
    .updateTable("sessions")
    .set({ revoked_at: now })
    .where("id", "=", sessionId)
    .where("revoked_at", "is", null)
    .execute();
}

/** Revokes every live session of USER except KEEP; returns the revoked sessions' cuids. */
export async function revokeOtherSessions(
  db: Db,
  now: number,
  userId: number,
  keepSessionId: number | null,
): Promise<string[]> {
  let q = db
    .updateTable("sessions")
    .set({ revoked_at: now })
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null);
  if (keepSessionId !== null) q = q.where("id", "!=", keepSessionId);
  const rows = await q.returning("cuid").execute();
  return rows.map((r) => r.cuid);
}

/** USER's live session with public id CUID, if any. */
export const findLiveSession = (db: Db, now: number, userId: number, cuid: string) =>
  db
    .selectFrom("sessions")
    .selectAll()
    .where("user_id", "=", userId)
    .where("cuid", "=", cuid)
    .where("revoked_at", "is", null)
    .where("refresh_expires_at", ">", now)
    .executeTakeFirst();

export async function listLiveSessions(db: Db, now: number, userId: number): Promise<SessionRow[]> {
  return db
    .selectFrom("sessions")
    .selectAll()
    .where("user_id", "=", userId)
    .where("revoked_at", "is", null)
    .where("refresh_expires_at", ">", now)
    .orderBy("last_seen_at", "desc")
    .execute();
}

const accountDisabled = () => new AppError(403, "ACCOUNT_DISABLED", "This account is disabled");

/**
 * Disabling an account also signs it out; a device still holding one of those tokens (the
 * access or refresh token really issued, checked by hash) learns why: ACCOUNT_DISABLED, as
 * documented, rather than a bare UNAUTHORIZED. Made-up tokens learn nothing.
 */
function signedOutByDisable({ session, user }: LoadedSession, hash: string): boolean {
  return (
    session.revoked_at !== null &&
    user.disabled_at !== null &&
    (safeEqual(session.access_hash, hash) || safeEqual(session.refresh_hash, hash))
  );
}

/** The caller's account must be usable: disabled accounts are refused everywhere. */
export function assertUsable(user: UserRow): void {
  if (user.disabled_at) throw accountDisabled();
}
