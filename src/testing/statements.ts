import type { KyselyPlugin } from "kysely";
import type { Db } from "../db";

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
