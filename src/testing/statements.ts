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

/** How long STORAGE must have run no statement before a count starts (quietly). */
const QUIET_MS = 25;
/** How long quietly waits for that at most: a server that never rests is counted anyway. */
const QUIET_BOUND_MS = 2_000;

/**
 * Waits until STORAGE has run no statement for QUIET_MS (at most QUIET_BOUND_MS): a burst of
 * background work (a job's attempt, the message indexer's catch-up), which on a loaded machine
 * can outlast several short runs, ends before a count starts.
 */
async function quietly(storage: Pick<Storage, "statements">): Promise<void> {
  const until = Date.now() + QUIET_BOUND_MS;
  let seen = storage.statements();
  while (Date.now() < until) {
    await Bun.sleep(QUIET_MS);
    const now = storage.statements();
    if (now === seen) return;
    seen = now;
  }
}

/**
 * The statements RUN itself costs: the fewest counted over TRIES runs (BEFORE, when given, runs
 * unmeasured ahead of each, to set up what RUN meets), each started once the server has been
 * quiet a moment, since what the server does in the background meanwhile (a job poll, the
 * settings check, the message indexer) only adds to a run's count. RUN must cost the same each
 * time.
 */
export async function fewestStatements(
  storage: Pick<Storage, "statements">,
  run: () => Promise<unknown>,
  opts: { tries?: number; before?: (attempt: number) => Promise<unknown> } = {},
): Promise<number> {
  let fewest = Infinity;
  for (let attempt = 0; attempt < (opts.tries ?? 3); attempt++) {
    await opts.before?.(attempt);
    await quietly(storage);
    fewest = Math.min(fewest, await statementsDuring(storage, run));
  }
  return fewest;
}
