/**
 * Send throughput with 1, 2 and 3 serving nodes on PostgreSQL + Redis, next to the single
 * SQLite node, in one run (not a test: it prints numbers for a person).
 *
 *   bun scripts/bench-nodes.ts [--seconds 5] [--connections 48] [--chats 24] [--nodes 0,1,2,3]
 *
 * --nodes: the configurations to run, 0 standing for the single SQLite node and n for n nodes
 * on PostgreSQL + Redis (e.g. `--nodes 1` while working on PostgreSQL's send).
 *
 * Each configuration gets a fresh instance: the nodes are real servers (startServer) in child
 * processes on one data dir (the same config and secret), on a fresh database of a throwaway
 * PostgreSQL cluster (src/testing/postgres.ts, a commit waiting for its WAL write as SQLite's
 * WAL does with synchronous=NORMAL) and one redis-server (src/testing/redis.ts). A person
 * sends `POST /api/social/messages/{cid}` with a fresh clientMessageId each time, over
 * --chats private chats in turn, each with its own sender and recipient (one chat would measure
 * its row lock, one sender in every chat the rows of that person's chat list); one wrk per node runs
 * at the same time, the connections split between them, and their req/s are summed. All on
 * one machine: the nodes, PostgreSQL, Redis and wrk share its cores, so the table shows the
 * shape of scaling, not the capacity of a deployment. Needs wrk and PostgreSQL; loopback only.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  arg,
  LIFTED_LIMITS,
  markdownTable,
  processCpuSeconds,
  requireWrk,
  runWrk,
  serveChild,
  spawnChild,
  startBaseline,
  type BenchRow,
  type ChildServer,
  type WrkResult,
} from "./bench-lib";

const CHILD_FLAG = "--bench-node-child";
/** .tmp of the repository (gitignored): each node's log of the last configuration, bench-nodes-node<i>.log */
const TMP = join(import.meta.dir, "..", ".tmp");
const nodeLog = (i: number) => join(TMP, `bench-nodes-node${i + 1}.log`);

/** What the seeding node hands the load generator. */
interface Seeded {
  url: string;
  /** the private chats, each with its sender's Cookie header and CSRF token (valid on every node: sessions are in the database) */
  chats: Array<{ conversationId: string; cookie: string; csrf: string }>;
}

/* ---------------------------------------------------------------- a node (child) */

async function runNode(): Promise<void> {
  const { startServer } = await import("../src/main");
  const { quickPerson } = await import("../src/testing/fixtures");
  const server = await startServer({
    dataDir: process.env.BENCH_DATA_DIR!,
    overrides: { ...LIFTED_LIMITS, ...JSON.parse(process.env.BENCH_SETTINGS!) },
  });
  if (process.env.BENCH_SEED !== "1") return serveChild({ url: server.url }, () => server.stop());
  const chats: Seeded["chats"] = [];
  for (let i = 0; i < Number(process.env.BENCH_CHATS); i++) {
    const sender = await quickPerson(server);
    const other = await quickPerson(server);
    const chat = await sender.client.post(`/api/social/users/${other.user.username}/message`, {});
    if (chat.status !== 200) throw new Error(`opening a chat failed: ${JSON.stringify(chat.body)}`);
    // the CSRF token first: fetching it sets the cookie it is checked against
    const csrf = await sender.client.fetchCsrf();
    chats.push({ conversationId: chat.body.data.conversationId, cookie: sender.client.cookieHeader(), csrf });
  }
  const seeded: Seeded = { url: server.url, chats };
  serveChild(seeded, () => server.stop());
}

/* ---------------------------------------------------------------- load generator (parent) */

interface Configuration {
  name: string;
  nodes: number;
  /** settings beside the lifted limits (database.url, pubsub.url) */
  settings: Record<string, unknown>;
}

interface Measured {
  result: WrkResult;
  /** CPU time of all the nodes per request (the database's processes not counted) */
  cpuUsPerRequest: number;
  /** CPU time of PostgreSQL's processes per request (none for SQLite, which runs inside the node) */
  databaseCpuUsPerRequest: number;
}

/** PostgreSQL's processes now: the postmaster (first line of postmaster.pid under DATA) and its children. */
function postgresPids(data: string): number[] {
  const postmaster = Number(readFileSync(join(data, "postmaster.pid"), "utf8").split("\n")[0]);
  const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, "utf8").trim();
  return [postmaster, ...children.split(" ").filter(Boolean).map(Number)];
}

/** CPU seconds PIDS have used so far (a process gone since counts as nothing). */
function cpuOf(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += processCpuSeconds(pid);
    } catch {
      // exited
    }
  }
  return total;
}

/** Starts the configuration's nodes, sends through all of them at once, stops them. */
async function measure(
  wrk: string,
  config: Configuration,
  opts: { seconds: number; connections: number; chats: number },
  /** PostgreSQL's data dir, when the configuration uses it */
  postgresData: string | null,
): Promise<Measured> {
  const dataDir = mkdtempSync(join(tmpdir(), "socialctl-bench-nodes-"));
  const env = {
    BENCH_DATA_DIR: dataDir,
    BENCH_SETTINGS: JSON.stringify(config.settings),
    BENCH_CHATS: String(opts.chats),
  };
  const nodes: ChildServer<{ url: string }>[] = [];
  try {
    // the first node migrates the database and seeds it; the others join the same instance
    const first = await spawnChild<Seeded>(import.meta.path, CHILD_FLAG, {
      env: { ...env, BENCH_SEED: "1" },
      stderrFile: nodeLog(0),
    });
    nodes.push(first);
    for (let i = 1; i < config.nodes; i++)
      nodes.push(await spawnChild<{ url: string }>(import.meta.path, CHILD_FLAG, { env, stderrFile: nodeLog(i) }));
    const seeded = first.ready;
    const headers = { "content-type": "application/json", "user-agent": "socialctl-bench" };
    const perNode = Math.max(1, Math.floor(opts.connections / nodes.length));
    const paths = seeded.chats.map((c) => `/api/social/messages/${c.conversationId}`);
    const pathHeaders = seeded.chats.map((c) => ({ cookie: c.cookie, "x-csrf-token": c.csrf }));
    const body = (n: string) => JSON.stringify({ content: "Hello from the benchmark", clientMessageId: n });
    // one send by hand through each node first: a benchmark of error responses would measure the wrong thing
    for (const [i, node] of nodes.entries()) {
      const res = await fetch(`${node.ready.url}${paths[0]}`, {
        method: "POST",
        headers: { ...headers, ...pathHeaders[0] },
        body: body(`probe-${i}`),
      });
      if (res.status !== 200) throw new Error(`${config.name}: a send answered ${res.status}: ${await res.text()}`);
    }
    /** One wrk per node at the same time; each numbers its requests alike, so LABEL and the node's index keep the ids apart. */
    const load = (label: string, seconds: number) =>
      Promise.all(
        nodes.map((node, i) =>
          runWrk(
            wrk,
            {
              url: `${node.ready.url}/`,
              method: "POST",
              headers,
              paths,
              pathHeaders,
              bodyTemplate: body(`${label}-node${i}-{n}`),
            },
            { seconds, threads: 1, connections: perNode },
          ),
        ),
      );
    // a warm-up (not counted): the JIT, the database pools and Redis connections settle first
    await load("warm", Math.min(3, opts.seconds));
    const cpuBefore = nodes.map((n) => processCpuSeconds(n.pid));
    // the backends serving the nodes' pools, opened by now (during the warm-up)
    const databasePids = postgresData ? postgresPids(postgresData) : [];
    const databaseBefore = cpuOf(databasePids);
    const results = await load("bench", opts.seconds);
    const cpuSeconds = nodes.reduce((sum, n, i) => sum + processCpuSeconds(n.pid) - cpuBefore[i]!, 0);
    const requests = results.reduce((sum, r) => sum + r.requests, 0);
    const result: WrkResult = {
      requests,
      rps: results.reduce((sum, r) => sum + r.rps, 0),
      // per-node percentiles cannot be merged exactly: the worst node's is shown
      p50Ms: Math.max(...results.map((r) => r.p50Ms)),
      p99Ms: Math.max(...results.map((r) => r.p99Ms)),
      non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
      socketErrors: results.reduce((sum, r) => sum + r.socketErrors, 0),
    };
    const perRequest = (seconds: number) => (requests > 0 ? (seconds * 1e6) / requests : 0);
    return {
      result,
      cpuUsPerRequest: perRequest(cpuSeconds),
      databaseCpuUsPerRequest: perRequest(cpuOf(databasePids) - databaseBefore),
    };
  } finally {
    for (const node of nodes.reverse()) await node.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const wrk = requireWrk();
  const opts = {
    seconds: Number(arg("seconds", "5")),
    connections: Number(arg("connections", "48")),
    chats: Number(arg("chats", "24")),
  };
  if (![opts.seconds, opts.connections, opts.chats].every((n) => Number.isInteger(n) && n > 0 && n <= 10_000)) {
    console.error("--seconds, --connections and --chats must be positive integers");
    process.exit(1);
  }
  const nodeCounts = arg("nodes", "0,1,2,3").split(",").map(Number);
  if (!nodeCounts.length || !nodeCounts.every((n) => Number.isInteger(n) && n >= 0 && n <= 8)) {
    console.error("--nodes takes a list of node counts from 0 (the SQLite node) to 8, e.g. 0,1,2,3");
    process.exit(1);
  }
  mkdirSync(TMP, { recursive: true });
  const { startPostgresCluster } = await import("../src/testing/postgres");
  const { startTestRedis } = await import("../src/testing/redis");
  const pg = await startPostgresCluster({ commitsWritten: true, autovacuum: true });
  const redis = await startTestRedis();
  const baseline = await startBaseline();
  try {
    const configurations: Array<() => Promise<Configuration>> = nodeCounts.map((n) =>
      n === 0
        ? async () => ({ name: "SQLite, 1 node (the single binary)", nodes: 1, settings: {} })
        : async () => ({
            name: `PostgreSQL + Redis, ${n} node${n > 1 ? "s" : ""}`,
            nodes: n,
            // a fresh database for each: every configuration starts from the same empty instance
            settings: { "database.url": await pg.createDatabase(`bench_nodes_${n}`), "pubsub.url": redis.url },
          }),
    );
    console.log(`wrk: ${opts.connections} connections split over the nodes, ${opts.seconds} s, ${opts.chats} chats`);
    const bare = (await runWrk(wrk, { url: `${baseline.ready.url}/` }, { ...opts, threads: 1 })).rps;
    console.log(`  bare Bun.serve: ${Math.round(bare)} req/s`);
    const measured: Array<{ name: string } & Measured> = [];
    for (const configure of configurations) {
      const config = await configure();
      const m = await measure(wrk, config, opts, config.settings["database.url"] ? join(pg.dir, "data") : null);
      console.log(
        `  ${config.name}: ${Math.round(m.result.rps)} req/s, p99 ${m.result.p99Ms.toFixed(2)} ms, ${Math.round(m.cpuUsPerRequest)} µs CPU/req in the nodes, ${Math.round(m.databaseCpuUsPerRequest)} µs in PostgreSQL${m.result.non2xx + m.result.socketErrors ? `, ${m.result.non2xx} non-2xx, ${m.result.socketErrors} socket errors` : ""}`,
      );
      measured.push({ name: config.name, ...m });
    }
    // the SQLite node, when it was run, is every row's reference
    const sqlite = nodeCounts.includes(0) ? measured[nodeCounts.indexOf(0)]!.result.rps : null;
    const rows: BenchRow[] = measured.map((m) => ({
      name: m.name,
      result: m.result,
      ratio: m.result.rps / bare,
      ...(sqlite === null ? {} : { reference: { name: "SQLite node", ratio: m.result.rps / sqlite } }),
      cpuUsPerRequest: m.cpuUsPerRequest,
    }));
    const databaseCpu = measured.map((m) => `${m.name}: ${Math.round(m.databaseCpuUsPerRequest)} µs`).join("; ");
    console.log(`\n${markdownTable(rows)}\n\nPostgreSQL's processes, CPU per request: ${databaseCpu}`);
  } finally {
    await baseline.stop();
    await redis.stop();
    pg.stop();
  }
}

if (process.argv.includes(CHILD_FLAG)) await runNode();
else await main();
