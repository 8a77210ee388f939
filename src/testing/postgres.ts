import { spawnSync } from "node:child_process";
import { chownSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { migrateToLatest, openPostgresStorage } from "../db";
import { postgresBinDir } from "../ops/postgres-tools";
import { freeLoopbackPort } from "./ports";
import { testsOnPostgres } from "./engine";
import { whenProcessEnds } from "./process-end";

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
  /** Shuts the server down (`pg_ctl stop -m fast`: sessions are ended), keeping its data: an outage begins. */
  shutDown(): void;
  /** Starts the shut-down server again on the same port and data: the outage ends. */
  startUp(): void;
  stop(): void;
}

const SUPERUSER = "postgres";

/** The command running a server binary as the postgres user when we are root (the server refuses root). */
function asPostgres(bin: string, args: string[]): string[] {
  return process.getuid?.() === 0 ? ["runuser", "-u", SUPERUSER, "--", bin, ...args] : [bin, ...args];
}

/** Runs a server binary (asPostgres) and waits for it. */
function runAsPostgres(bin: string, args: string[]): void {
  const [cmd, ...argv] = asPostgres(bin, args);
  const res = spawnSync(cmd!, argv, { encoding: "utf8", cwd: "/" });
  if (res.status !== 0)
    throw new Error(`${bin} ${args.join(" ")} failed (${res.status}): ${res.stderr || res.stdout || res.error}`);
}

/** runAsPostgres without blocking this process's event loop meanwhile (a test runner reading its tests' output). */
async function runAsPostgresAside(bin: string, args: string[]): Promise<void> {
  const proc = Bun.spawn(asPostgres(bin, args), { cwd: "/", stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  if (code !== 0) throw new Error(`${bin} ${args.join(" ")} failed (${code}): ${err || out}`);
}

/**
 * Makes and starts a cluster; throws with the reason when PostgreSQL is not installed. With
 * OPTS.commitsWritten a commit waits until its WAL is written to the OS (synchronous_commit
 * on, fsync still off): what SQLite's WAL with synchronous=NORMAL guarantees (a commit
 * survives the process, not a power cut), for benchmarks comparing the two.
 */
export async function startPostgresCluster(
  opts: {
    commitsWritten?: boolean;
    /**
     * off unless asked: a test's database lives for seconds, and the launcher visiting each of
     * a run's hundreds of databases in turn keeps a core busy for nothing
     */
    autovacuum?: boolean;
  } = {},
): Promise<PostgresCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL is not installed (apt-get install postgresql; .ci/run does it)");
  const dir = mkdtempSync(join(tmpdir(), "socialctl-pg-"));
  const data = join(dir, "data");
  // the process may end without anyone calling stop (a failed test file, the shared cluster of
  // a test process, a benchmark): the cluster goes too, once the process has ended
  const stopCmd = asPostgres(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"])
    .map((word) => `'${word}'`)
    .join(" ");
  whenProcessEnds(`${stopCmd} >/dev/null 2>&1; rm -rf '${dir}'`);
  if (process.getuid?.() === 0) {
    const id = spawnSync("id", ["-u", SUPERUSER], { encoding: "utf8" });
    const gid = spawnSync("id", ["-g", SUPERUSER], { encoding: "utf8" });
    chownSync(dir, Number(id.stdout.trim()), Number(gid.stdout.trim()));
  }
  await runAsPostgresAside(join(bin, "initdb"), [
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
    `-c autovacuum=${opts.autovacuum ? "on" : "off"}`,
  ].join(" ");
  const startArgs = ["-D", data, "-o", options, "-l", join(dir, "log"), "-w", "-t", "60", "start"];
  const startUp = () => runAsPostgres(join(bin, "pg_ctl"), startArgs);
  await runAsPostgresAside(join(bin, "pg_ctl"), startArgs);
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
  return {
    port,
    dir,
    ...databasesAt(`postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`),
    shutDown: () => runAsPostgres(join(bin, "pg_ctl"), ["-D", data, "-m", "fast", "-w", "-t", "60", "stop"]),
    startUp,
    stop,
  };
}

/** What a test process does with a cluster: make databases on it and name them by URL. */
type Databases = Pick<PostgresCluster, "url" | "createDatabase">;

/** The databases of the server at URL (a database URL on it: any database), made through its `postgres` database. */
function databasesAt(url: string): Databases {
  const on = (name: string) => {
    const u = new URL(url);
    u.pathname = `/${name}`;
    return u.href;
  };
  // one connection for every database made: a new backend costs the server more than the copy
  let admin: Bun.SQL | null = null;
  return {
    url: on,
    async createDatabase(name, template) {
      const statement = `CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ""}`;
      admin ??= new Bun.SQL(on("postgres"), { max: 1, idleTimeout: 5 });
      try {
        await admin.unsafe(statement);
      } catch (err) {
        // the server restarted since (an outage a test made): once more on a new connection
        if (!/connection|closed|ECONNRE/i.test(String((err as Error).message))) throw err;
        admin = new Bun.SQL(on("postgres"), { max: 1, idleTimeout: 5 });
        await admin.unsafe(statement);
      }
      return on(name);
    },
  };
}

/** The name of the database with every migration applied that test databases are copied from. */
const TEMPLATE = "social_template";

/** Makes the template database on CLUSTER and applies every migration to it: its URL. */
async function migratedTemplate(cluster: Databases): Promise<string> {
  const url = await cluster.createDatabase(TEMPLATE);
  const storage = openPostgresStorage(url);
  try {
    await migrateToLatest(storage.db);
  } finally {
    await storage.close();
  }
  return url;
}

/**
 * Names a cluster made for a whole test run (scripts/test.ts) to the run's test processes: the
 * URL of its migrated template database. Without it, each test process starts a cluster of its own.
 */
export const RUN_CLUSTER_ENV = "SOCIAL_TEST_POSTGRES";

/**
 * A cluster for every test process of a run, with the template migrated: the value of
 * RUN_CLUSTER_ENV for them, and its stop. Test processes share it through their own database
 * names (tPID_N), so a run starts one cluster and migrates once instead of once per worker.
 */
export async function startRunCluster(): Promise<{ env: string; stop(): void }> {
  const cluster = await startPostgresCluster();
  try {
    return { env: await migratedTemplate(cluster), stop: cluster.stop };
  } catch (err) {
    cluster.stop();
    throw err;
  }
}

let shared: Promise<{ cluster: Databases; template: string }> | null = null;
let databases = 0;

/**
 * The cluster this test process makes its databases on, and the name of its template: the
 * run's (RUN_CLUSTER_ENV), else the process's own, started and its template migrated on first use.
 */
function sharedCluster(): Promise<{ cluster: Databases; template: string }> {
  shared ??= (async () => {
    const run = process.env[RUN_CLUSTER_ENV];
    if (run) return { cluster: databasesAt(run), template: new URL(run).pathname.slice(1) };
    const cluster = await startPostgresCluster();
    await migratedTemplate(cluster);
    return { cluster, template: TEMPLATE };
  })();
  return shared;
}

/** A fresh database on the process's shared cluster, migrated (a copy of the template: faster than migrating) or EMPTY: its URL. */
export async function freshPostgresDatabase(opts: { empty?: boolean } = {}): Promise<string> {
  const { cluster, template } = await sharedCluster();
  const name = `t${process.pid}_${++databases}`;
  return cluster.createDatabase(name, opts.empty ? undefined : template);
}

/** Where the engine switch lives (src/testing/engine.ts), for the tests that import it from here. */
export { testsOnPostgres };
