import type { Command } from "commander";
import { openApp } from "../../src/wiring";
import { resolveDataDir } from "../../src/config";
import { migrateToLatest } from "../../src/db";
import { silentLogger } from "../../src/lib/log";
import { emit } from "../output";
import { globals } from "../context";
import { progressBars } from "../progress";

export function registerMigrate(program: Command) {
  program
    .command("migrate")
    .description("apply pending schema migrations")
    .action(async (_f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const app = await openApp({ dataDir: resolveDataDir(opts.dataDir), log: silentLogger, migrate: false });
      try {
        const bars = progressBars(opts);
        // on a terminal a bar; otherwise (logs, scripts) one line per migration on stderr, as before
        const lines = !opts.json && !process.stdout.isTTY;
        const result = await migrateToLatest(app.db, {
          onProgress: (p) => {
            bars.update("Applying migrations", p.ms === undefined ? p.index - 1 : p.index, p.total);
            if (lines)
              process.stderr.write(
                p.ms === undefined
                  ? `applying ${p.name} (${p.index}/${p.total})…\n`
                  : `  done in ${Math.round(p.ms)} ms\n`,
              );
          },
        });
        bars.stop("Migrations applied");
        const applied = (result.results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
        emit(
          opts,
          { applied, snapshot: result.snapshot },
          [
            applied.length ? `Applied:\n${applied.join("\n")}` : "Schema is up to date.",
            result.snapshot ? `The database as it was before: ${result.snapshot}` : "",
          ]
            .filter(Boolean)
            .join("\n"),
        );
      } finally {
        await app.close();
      }
    });
}
