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
