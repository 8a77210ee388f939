import type { Command } from "commander";
import { createApp } from "../../src/app";
import { resolveDataDir } from "../../src/config";
import { migrateToLatest } from "../../src/db";
import { silentLogger } from "../../src/lib/log";
import { emit } from "../output";
import { globals } from "../context";

export function registerMigrate(program: Command) {
  program
    .command("migrate")
    .description("apply pending schema migrations")
    .action(async (_f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      const app = await createApp({ dataDir: resolveDataDir(opts.dataDir), log: silentLogger, migrate: false });
      try {
        const result = await migrateToLatest(app.db);
        const applied = (result.results ?? []).filter((r) => r.status === "Success").map((r) => r.migrationName);
        emit(opts, { applied }, applied.length ? `Applied:\n${applied.join("\n")}` : "Schema is up to date.");
      } finally {
        await app.close();
      }
    });
}
