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

/**
 * The statements RUN itself costs: the fewest counted over TRIES runs (BEFORE, when given, runs
 * unmeasured ahead of each, to set up what RUN meets), since what the server does in the
 * background meanwhile (a job poll, the settings check, the message indexer) only adds to a
 * run's count. RUN must cost the same each time.
 */
export async function fewestStatements(
  storage: Pick<Storage, "statements">,
  run: () => Promise<unknown>,
  opts: { tries?: number; before?: (attempt: number) => Promise<unknown> } = {},
): Promise<number> {
  let fewest = Infinity;
  for (let attempt = 0; attempt < (opts.tries ?? 3); attempt++) {
    await opts.before?.(attempt);
    fewest = Math.min(fewest, await statementsDuring(storage, run));
  }
  return fewest;
}
