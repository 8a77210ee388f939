import type { Command } from "commander";
import { resolveDataDir } from "../../src/config";
import { runDoctor, type CheckStatus } from "../../src/ops/doctor";
import { emit } from "../output";
import { globals } from "../context";

const MARK: Record<CheckStatus, string> = { ok: "ok  ", warn: "WARN", fail: "FAIL", skipped: "skip" };

/** socialctl doctor [--time-url URL] */
export function registerDoctor(program: Command) {
  program
    .command("doctor")
    .description(
      "check the data dir, permissions, disk, database, migrations, ffmpeg, SMTP and clock; say what to do about each problem",
    )
    .option("--time-url <url>", "compare the clock with this http(s) server's Date header")
    .action(async (f: { timeUrl?: string }, cmd: Command) => {
      const opts = globals(cmd);
      const checks = await runDoctor({ dataDir: resolveDataDir(opts.dataDir), timeUrl: f.timeUrl });
      const ok = !checks.some((c) => c.status === "fail");
      emit(opts, { ok, checks }, () =>
        checks
          .map(
            (c) => `${MARK[c.status]}  ${c.name}: ${c.detail}${c.fix && c.status !== "ok" ? `\n      → ${c.fix}` : ""}`,
          )
          .join("\n"),
      );
      if (!ok) process.exitCode = 1;
    });
}
