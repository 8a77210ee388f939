import { spawn, spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrateToLatest, openPostgresStorage } from "../db";
import { postgresBinDir } from "../ops/postgres-tools";
import { freeLoopbackPort } from "./ports";
import { atEndOfRun } from "./end-of-run";

/**
 * A throwaway PostgreSQL cluster for tests: Debian's server binaries, `initdb` in a temp dir
 * owned by the `postgres` system user (the server refuses to run as root, and tests do), a
 * loopback port and unix sockets in that dir, durability switched off (a test cluster is
 * thrown away), stopped and removed when the test process exits.
 */
export interface PostgresCluster {
  readonly port: number;
  readonly dir: string;
  /** postgres://… of database NAME on this cluster */
  url(name: string): string;
  /** Creates an empty database (or a copy of TEMPLATE) and returns its URL. */
  createDatabase(name: string, template?: string): Promise<string>;
  stop(): void;
}

const SUPERUSER = "postgres";

/** Runs a server binary as the postgres user when we are root (the server refuses root). */
function runAsPostgres(bin: string, args: string[]): void {
  const asRoot = process.getuid?.() === 0;
  const [cmd, argv] = asRoot ? ["runuser", ["-u", SUPERUSER, "--", bin, ...args]] : [bin, args];
  const res = spawnSync(cmd, argv, { encoding: "utf8", cwd: "/" });
  if (res.status !== 0)
    throw new Error(`${bin} ${args.join(" ")} failed (${res.status}): ${res.stderr || res.stdout || res.error}`);
}

/**
 * Stops the cluster in DATA and removes DIR from a detached shell the exiting process does not
 * wait for (immediate mode: a test cluster keeps nothing).
 */
function stopDetached(pgCtl: string, data: string, dir: string): void {
  const asRoot = process.getuid?.() === 0;
  const stopCmd = `${asRoot ? `runuser -u ${SUPERUSER} -- ` : ""}'${pgCtl}' -D '${data}' -m immediate -w stop`;
  const child = spawn("sh", ["-c", `${stopCmd} >/dev/null 2>&1; rm -rf '${dir}'`], {
    cwd: "/",
    detached: true,
    stdio: "ignore",
  });
  child.unref();
}

/**
 * Makes and starts a cluster; throws with the reason when PostgreSQL is not installed. With
 * OPTS.commitsWritten a commit waits until its WAL is written to the OS (synchronous_commit
 * on, fsync still off): what SQLite's WAL with synchronous=NORMAL guarantees (a commit
 * survives the process, not a power cut), for benchmarks comparing the two.
 */
export async function startPostgresCluster(opts: { commitsWritten?: boolean } = {}): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL is not installed (apt-get install postgresql; .ci/run does it)");
  const dir = mkdtempSync(join(tmpdir(), "socialctl-pg-"));
  const data = join(dir, "data");
  if (process.getuid?.() === 0) {
    const id = spawnSync("id", ["-u", SUPERUSER], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", SUPERUSER], { encoding: "utf8" });
    chownSync(dir, Number(id.stdout.trim()), Number(gid.stdout.trim()));
  }
  runAsPostgres(join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    SUPERUSER,
    "-A",
    "trust",
    "-E",
    "UTF8",
    "--locale=C.UTF-8",
    "--no-sync",
    "--no-instructions",
  ]);
  const port = freeLoopbackPort();
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    "-c listen_addresses=127.0.0.1",
    "-c fsync=off",
    `-c synchronous_commit=${opts.commitsWritten ? "on" : "off"}`,
    "-c full_page_writes=off",
    "-c max_connections=200",
    "-c shared_buffers=32MB",
  ].join(" ");
  runAsPostgres(join(bin, "pg_ctl"), ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"]);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      runAsPostgres(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  // the process may end without anyone calling stop (a failed test file, the shared cluster):
  // the cluster goes too, at the end of a test run or of any other process (a benchmark). At
  // the end of a test run nothing waits for it: a synchronous stop inside bun's global afterAll
  // can be reported as a timed-out hook under heavy load, failing a green run
  const stopInBackground = () => {
    if (stopped) return;
    stopped = true;
    stopDetached(join(bin, "pg_ctl"), data, dir);
  };
  atEndOfRun(stopInBackground);
  process.once("exit", stopInBackground);
  const url = (name: string) => `postgres://${SUPERUSER}@127.0.0.1:${port}/${name}`;
  return {
    port,
    dir,
    url,
    async createDatabase(name, template) {
      const admin = new Bun.SQL(url("postgres"), { max: 1 });
      try {
        await admin.unsafe(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`);
      } finally {
        await admin.close();
      }
      return url(name);
    },
    stop,
  };
}

let shared: Promise<PostgresCluster> | null = null;
let databases = 0;

/** The one cluster of this test process, started on first use. */
export function sharedPostgresCluster(): Promise<PostgresCluster> {
  shared ??= startPostgresCluster();
  return shared;
}

let template: Promise<string> | null = null;

/** A database with every migration applied, copied for each test app (copying is faster than migrating). */
function migratedTemplate(cluster: PostgresCluster): Promise<string> {
  template ??= (async () => {
    const name = "social_template";
    const storage = openPostgresStorage(await cluster.createDatabase(name));
    try {
      await migrateToLatest(storage.db);
    } finally {
      await storage.close();
    }
    return name;
  })();
  return template;
}

/** A fresh database on the process's shared cluster, migrated (or EMPTY): its URL. */
export async function freshPostgresDatabase(opts: { empty?: boolean } = {}): Promise<string> {
  const cluster = await sharedPostgresCluster();
  const name = `t${process.pid}_${++databases}`;
  return cluster.createDatabase(name, opts.empty ? undefined : await migratedTemplate(cluster));
}

/** True when the test app factory should put apps on PostgreSQL (SOCIAL_TEST_DATABASE=postgres). */
export const testsOnPostgres = (): boolean => process.env.SOCIAL_TEST_DATABASE === "postgres";
