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

/** pg_dump on PATH, else the newest Debian install's; null when there is none. */
export function findPgDump(): string | null {
  const dir = postgresBinDir();
  return Bun.which("pg_dump") ?? (dir ? join(dir, "pg_dump") : null);
}

/**
 * pg_dump of the database at URL into FILE, custom format (compressed, for pg_restore): one
 * consistent snapshot taken in a single transaction while the instance keeps serving. The
 * password goes through the environment, not the command line other users can read.
 * Returns the time it took.
 */
export async function pgDumpInto(pgDump: string, url: string, file: string): Promise<number> {
  const t0 = performance.now();
  const u = new URL(url);
  const password = decodeURIComponent(u.password);
  u.password = "";
  const proc = Bun.spawn([pgDump, "--format=custom", "--no-owner", `--file=${file}`, `--dbname=${u.toString()}`], {
    env: { ...process.env, ...(password ? { PGPASSWORD: password } : {}) },
    stdout: "ignore",
    stderr: "pipe",
  });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  if (code !== 0) throw new Error(`pg_dump failed (${code}): ${stderr.trim()}`);
  return performance.now() - t0;
}
