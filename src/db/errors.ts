/*
 * Database errors the domain reacts to, recognised the same way on both engines (SQLite's
 * result codes come in the message; PostgreSQL's SQLSTATE in `errno`).
 */

const sqlstate = (err: unknown): string | undefined => {
  const code = (err as { errno?: unknown } | null)?.errno;
  return typeof code === "string" ? code : undefined;
};

/** A unique index or constraint refused the write (a concurrent duplicate won). */
export const isUniqueViolation = (err: unknown): boolean =>
  sqlstate(err) === "23505" || String(err).includes("UNIQUE constraint failed");

/**
 * PostgreSQL gave up a transaction to keep concurrent ones consistent (a serialization
 * failure or a deadlock): running it again from the start is the remedy. Never on SQLite,
 * whose single writer runs transactions one at a time.
 */
export const isRetryableConflict = (err: unknown): boolean => {
  const code = sqlstate(err);
  return code === "40001" || code === "40P01";
};

/**
 * Codes of a connection to an engine that failed or was refused: the system's (ECONNREFUSED…),
 * Bun's PostgreSQL and Redis clients' (ERR_POSTGRES_CONNECTION_CLOSED, ERR_REDIS_CONNECTION_CLOSED…)
 * and Bun's S3 client's (ConnectionRefused…), and the S3 answers that mean "try later".
 */
const UNREACHABLE_CODE =
  /^(E(CONNREFUSED|CONNRESET|CONNABORTED|PIPE|TIMEDOUT|HOSTUNREACH|NETUNREACH|HOSTDOWN|AI_AGAIN|NOTFOUND)|ERR_POSTGRES_(CONNECTION_\w+|IDLE_TIMEOUT|LIFETIME_TIMEOUT|QUERY_CANCELLED)|ERR_REDIS_(CONNECTION_\w+|TIMEOUT|AUTHENTICATION_FAILED)|Connection\w+|ServiceUnavailable|SlowDown|RequestTimeout|InternalError)$/;

/**
 * PostgreSQL refusing work while it is unavailable: class 08 (connection exceptions), 57P01–57P05
 * (shut down by an administrator, a crash, starting up, a database being dropped, idle timeout),
 * 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08\w{3}|57P0[1-5]|53300)$/;

/**
 * An engine the request needed (the database, Redis, the bucket) could not be reached or
 * refused work for now: the answer is 503 with Retry-After, not a 500 (which is for bugs).
 * Looks through `cause` chains, where a client may have wrapped the connection's error.
 */
export function isEngineUnreachable(err: unknown): boolean {
  for (let e = err, depth = 0; e && typeof e === "object" && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && UNREACHABLE_CODE.test(code)) return true;
    const state = sqlstate(e);
    if (state && UNAVAILABLE_SQLSTATE.test(state)) return true;
  }
  return false;
}

/** An engine's error for the log: its code (a failed connection is named by it) and message. */
export const describeEngineError = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  const text = error instanceof Error ? error.message : String(error);
  return typeof code === "string" ? `${code}: ${text}` : text;
};
