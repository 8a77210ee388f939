import type { Command } from "commander";
import { resolveDataDir } from "../../src/config";
import { moveToPostgres } from "../../src/ops/to-postgres";
import { emit } from "../output";
import { globals } from "../context";
import { socialctl } from "../hints";
import { progressBars } from "../progress";

export function registerMigrateToPostgres(program: Command) {
  program
    .command("migrate-to-postgres <url>")
    .description(
      "move every row of this SQLite instance into an empty PostgreSQL database, verify, switch database.url",
    )
    .action(async (url: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const bars = progressBars(opts);
      const result = await moveToPostgres(resolveDataDir(opts.dataDir), url, (p) =>
        bars.update(`Copying ${p.table}`, p.done, p.total),
      );
      bars.stop("Copied and verified");
      const rows = result.tables.reduce((n, t) => n + t.rows, 0);
      emit(opts, result, () =>
        [
          ...result.tables.map((t) => `${t.table}: ${t.rows} rows, sha256 ${t.sqlite.slice(0, 16)} on both`),
          `${rows} rows in ${result.tables.length} tables copied and verified, ${result.indexedPosts} posts indexed for search, in ${Math.round(result.ms)} ms.`,
          "database.url now names the PostgreSQL database: the next start serves from it. The SQLite file is left as it was.",
          `Files stay in the data dir: for several nodes, move them into a bucket (${socialctl(opts)} media to-s3 BUCKET) and give every node the config and secret (${socialctl(opts)} config export).`,
        ].join("\n"),
      );
    });
}
