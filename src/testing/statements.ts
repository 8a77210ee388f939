import type { KyselyPlugin } from "kysely";
import type { Db, Storage } from "../db";

/**
 * DB with a counter of executed statements (compiled-once queries included), for tests
 * that pin how many statements a hot path runs.
 */
export function countingDb(db: Db): { db: Db; counter: { statements: number } } {
  const counter = { statements: 0 };
  const plugin: KyselyPlugin = {
    transformQuery: (args) => args.node,
    transformResult: async (args) => {
      counter.statements++;
      return args.result;
    },
  };
  return { db: db.withPlugin(plugin), counter };
}

/**
 * How many statements STORAGE ran while RUN ran (BEGIN and COMMIT included), for tests that
 * pin a whole request over HTTP. Everything the server runs meanwhile counts: keep RUN to one
 * request, with nothing else in flight.
 */
export async function statementsDuring(
  storage: Pick<Storage, "statements">,
  run: () => Promise<unknown>,
): Promise<number> {
  const before = storage.statements();
  await run();
  return storage.statements() - before;
}
