import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";

/** The newest installed server's bin dir (Debian: /usr/lib/postgresql/<major>/bin), or null. */
export function postgresBinDir(): string | null {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return null;
  const majors = readdirSync(root)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(root, v, "bin", "pg_dump")))
    .sort((a, b) => Number(b) - Number(a));
  return majors.length ? join(root, majors[0]!, "bin") : null;
}

/** TOOL (pg_dump, pg_restore) on PATH, else the newest Debian install's; null when there is none. */
export function findPgTool(tool: "pg_dump" | "pg_restore"): string | null {
  const dir = postgresBinDir();
  const installed = dir ? join(dir, tool) : null;
  return Bun.which(tool) ?? (installed && existsSync(installed) ? installed : null);
}

/** The URL without its password, and the environment that passes the password to a libpq tool instead. */
function libpqTarget(url: string): { dbname: string; env: Record<string, string | undefined> } {
  const u = new URL(url);
  const password = decodeURIComponent(u.password);
  u.password = "";
  // the password goes through the environment, not the command line other users can read
  return { dbname: u.toString(), env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) } };
}

async function runTool(argv: string[], env: Record<string, string | undefined>): Promise<void> {
  const proc = Bun.spawn(argv, { env, stdout: "ignore", stderr: "pipe" });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  const name = argv[0]!.split("/").at(-1);
  if (code !== 0) throw new Error(`${name} failed (${code}): ${stderr.trim().split("\n")[0]}`);
}

/**
 * pg_dump of the database at URL into FILE, custom format (compressed, for pg_restore): one
 * consistent snapshot taken in a single transaction while the instance keeps serving.
 * Returns the time it took.
 */
export async function pgDumpInto(pgDump: string, url: string, file: string): Promise<number> {
  const t0 = performance.now();
  const { dbname, env } = libpqTarget(url);
  await runTool([pgDump, "--format=custom", "--no-owner", `--file=${file}`, `--dbname=${dbname}`], env);
  return performance.now() - t0;
}

/**
 * pg_restore of the custom-format dump FILE into the (empty) database at URL, in one
 * transaction: it all commits, or nothing does. Ownership is left to the connecting user.
 */
export async function pgRestoreFrom(pgRestore: string, url: string, file: string): Promise<void> {
  const { dbname, env } = libpqTarget(url);
  await runTool([pgRestore, "--no-owner", "--exit-on-error", "--single-transaction", `--dbname=${dbname}`, file], env);
}
