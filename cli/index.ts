#!/usr/bin/env bun
import { Command } from "commander";
import { VERSION } from "../src/config/layout";
import { commanderOutput, fail, type GlobalOptions } from "./output";
import { registerInit } from "./commands/init";
import { registerServe } from "./commands/serve";
import { registerUser } from "./commands/user";
import { registerModeration } from "./commands/moderation";
import { registerReports } from "./commands/reports";
import { registerConfig } from "./commands/config";
import { registerMigrate } from "./commands/migrate";
import { registerMigrateToPostgres } from "./commands/migrate-to-postgres";
import { registerBackup } from "./commands/backup";
import { registerStatus } from "./commands/status";
import { registerMedia } from "./commands/media";
import { registerBot } from "./commands/bot";
import { registerStars } from "./commands/stars";
import { registerPrint } from "./commands/print";
import { registerDoctor } from "./commands/doctor";
import { registerDev } from "./commands/dev";
import { registerAs } from "./commands/as";
import { registerInvite } from "./commands/invite";
import { registerJobs } from "./commands/jobs";

const output = commanderOutput();

/** The socialctl command tree. A command file registers itself with one line here. */
export function buildProgram(): Command {
  const program = new Command("socialctl")
    .description("a self-hosted social network with a Telegram-compatible Bot API, in one executable")
    .version(VERSION)
    .option("--data-dir <dir>", "instance data directory (env SOCIAL_DATA_DIR)", undefined)
    .option("--json", "print exactly one JSON document on stdout")
    .option("-y, --yes", "accept defaults, never prompt")
    .exitOverride()
    .configureOutput(output.config);
  registerInit(program);
  registerServe(program);
  registerUser(program);
  registerModeration(program);
  registerReports(program);
  registerConfig(program);
  registerMigrate(program);
  registerMigrateToPostgres(program);
  registerBackup(program);
  registerStatus(program);
  registerMedia(program);
  registerBot(program);
  registerStars(program);
  registerPrint(program);
  registerDoctor(program);
  registerDev(program);
  registerAs(program);
  registerInvite(program);
  registerJobs(program);
  return program;
}

/** Runs the command line: a function rather than top-level await, as Bun's bytecode build of the binary expects. */
async function main(): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(process.argv);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code?.startsWith("commander.")) output.exit(err as { code: string });
    fail(program.opts() as GlobalOptions, err);
  }
}

if (import.meta.main) void main();
