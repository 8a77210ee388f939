/**
 * True when test instances go on PostgreSQL (SOCIAL_TEST_DATABASE=postgres: the PostgreSQL set,
 * scripts/test-postgres.ts), false on SQLite.
 */
export const testsOnPostgres = (): boolean => process.env.SOCIAL_TEST_DATABASE === "postgres";
