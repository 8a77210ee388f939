import type { Db } from "../../db";
import { precompiled, splitPrefixedRow } from "../../db/compiled";
import { AppError } from "../../lib/errors";
import { safeEqual, sha256Hex } from "../../lib/crypto";
import { newCuid, randomToken } from "../../lib/ids";
import type { UserRow } from "../users/table";
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

function splitToken(token: string | undefined): { sessionCuid: string; hash: string } | null {
  if (!token) return null;
  const dot = token.indexOf(".");
  if (dot <= 0 || dot === token.length - 1 || token.length > 200) return null;
  return { sessionCuid: token.slice(0, dot), hash: sha256Hex(token.slice(dot + 1)) };
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
  session: SessionRow;
  /** the session's device is banned: the caller answers DEVICE_BANNED */
  deviceBanned: boolean;
  /** set when the access token had expired and the session was renewed: send new cookies */
  renewed?: IssuedTokens;
}

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
  user_agent: 1,
  ip: 1,
  device_id: 1,
  created_at: 1,
  last_seen_at: 1,
  revoked_at: 1,
} satisfies Record<keyof SessionRow, 1>) as (keyof SessionRow)[];
const SESSION_PREFIX = "session__";

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
    .select("banned_devices.id as banned_device_id")
    .where("sessions.cuid", "=", v.cuid),
);

interface LoadedSession {
  session: SessionRow;
  user: UserRow;
  deviceBanned: boolean;
}

async function loadSession(db: Db, sessionCuid: string): Promise<LoadedSession | null> {
  const [row] = await sessionWithUserQuery(db, { cuid: sessionCuid });
  if (!row) return null;
  const { banned_device_id, ...joined } = row as Record<string, unknown>;
  const { prefixed: session, rest: user } = splitPrefixedRow<SessionRow, UserRow>(joined, SESSION_PREFIX);
  return { session, user, deviceBanned: banned_device_id !== null };
}

/**
 * Resolves the session behind the cookies. A live access token is enough; an expired one
 * with a live refresh token renews both (rotation). Presenting any refresh token of the
 * session other than the current one (or the one rotated away within the grace window for
 * racing requests) means it was copied: the session is revoked.
 * Returns null when there is no usable session.
 */
export async function authenticate(
  db: Db,
  now: number,
  ttls: SessionTtls,
  cookies: { access?: string; refresh?: string; ip: string },
): Promise<Authenticated | null> {
  const access = splitToken(cookies.access);
  if (access) {
    const loaded = await loadSession(db, access.sessionCuid);
    const session = loaded?.session;
    if (
      session &&
      !session.revoked_at &&
      session.access_expires_at > now &&
      safeEqual(session.access_hash, access.hash)
    ) {
      return withUser(db, now, loaded!, session, undefined, cookies.ip);
    }
    if (session && signedOutByDisable(loaded!, access.hash)) throw accountDisabled();
  }
  const refresh = splitToken(cookies.refresh);
  if (!refresh) return null;
  const loaded = await loadSession(db, refresh.sessionCuid);
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
    if (!updated) return withUser(db, now, loaded, session, undefined, cookies.ip);
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
    );
  }
  const justRotated = session.prev_refresh_hash && safeEqual(session.prev_refresh_hash, refresh.hash);
  if (justRotated && session.refreshed_at && now - session.refreshed_at < ROTATION_GRACE_MS) {
    return withUser(db, now, loaded, session, undefined, cookies.ip);
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
  session: SessionRow,
  renewed: IssuedTokens | undefined,
  ip: string,
): Promise<Authenticated | null> {
  if (user.deleted_at !== null) return null;
  if (!renewed && now - session.last_seen_at > LAST_SEEN_EVERY_MS) {
    await db.updateTable("sessions").set({ last_seen_at: now, ip }).where("id", "=", session.id).execute();
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
