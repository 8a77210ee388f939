/**
 * Backup under write load (not a test): builds a database of at least 1 GB (bulk inserts in
 * transactions, bounded), then runs a write loop (one autocommit INSERT at a time, as a
 * serving process would) while `socialctl backup create` runs in another process, and
 * reports the loop's latency before and during the backup.
 *
 *   bun scripts/bench-backup.ts [--dir DIR] [--mb 1024] [--rate WRITES_PER_S] [--auto-checkpoint] [--keep]
 *
 * DIR is reused when it already holds a database of the requested size.
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { migrateToLatest, openStorage } from "../src/db";
import { selfCommand } from "../src/ops/schedule";
import { startCheckpointer } from "../src/ops/checkpointer";
import { createLogger } from "../src/lib/log";

const { values } = parseArgs({
  options: {
    dir: { type: "string" },
    mb: { type: "string", default: "1024" },
    keep: { type: "boolean", default: false },
    "auto-checkpoint": { type: "boolean", default: false },
    rate: { type: "string", default: "0" },
  },
});
/** writes per second of the loop; 0 = as fast as one connection goes */
const rate = Number(values.rate);
const targetBytes = Number(values.mb) * 1024 * 1024;
const dataDir = values.dir ?? mkdtempSync(join(tmpdir(), "socialctl-bench-backup-"));
const dbFile = join(dataDir, "social.db");
const ROW_BYTES = 4096;
const BUILD_DEADLINE_MS = 10 * 60_000;

async function build(): Promise<void> {
  const storage = openStorage(dbFile);
  await migrateToLatest(storage.db);
  await storage.close();
  const db = new Database(dbFile);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL");
  db.exec("CREATE TABLE IF NOT EXISTS bench_blobs (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)");
  const insert = db.prepare("INSERT INTO bench_blobs (payload) VALUES (?)");
  const batch = db.transaction((rows: Uint8Array[]) => {
    for (const r of rows) insert.run(r);
  });
  const t0 = Date.now();
  // half random (incompressible), half repetitive text, like a mix of media metadata and posts
  const rows = Array.from({ length: 1000 }, (_, i) => {
    const buf = new Uint8Array(ROW_BYTES);
    crypto.getRandomValues(buf.subarray(0, ROW_BYTES / 2));
    buf.set(new TextEncoder().encode(`post ${i} `.repeat(ROW_BYTES).slice(0, ROW_BYTES / 2)), ROW_BYTES / 2);
    return buf;
  });
  while (statSync(dbFile).size + fileSize(`${dbFile}-wal`) < targetBytes) {
    if (Date.now() - t0 > BUILD_DEADLINE_MS) throw new Error("building the database took too long");
    batch(rows);
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  db.close();
  console.log(
    `built ${(statSync(dbFile).size / 1024 / 1024).toFixed(0)} MB in ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
}

function fileSize(path: string): number {
  return existsSync(path) ? statSync(path).size : 0;
}

interface Stats {
  writes: number;
  p50: number;
  p99: number;
  max: number;
}

function summarise(samples: number[]): Stats {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (n: number) => Math.round(n * 100) / 100;
  return { writes: sorted.length, p50: round(at(0.5)), p99: round(at(0.99)), max: round(sorted.at(-1) ?? 0) };
}

/** One autocommit insert at a time, yielding to the event loop between, until `until` resolves. */
async function writeLoop(
  db: Database,
  until: Promise<unknown>,
  maxMs: number,
  slow: Array<{ atMs: number; ms: number }> = [],
): Promise<number[]> {
  const insert = db.prepare("INSERT INTO bench_writes (at, note) VALUES (?, ?)");
  const samples: number[] = [];
  const start = performance.now();
  let done = false;
  void until.finally(() => (done = true));
  const stopAt = performance.now() + maxMs;
  while (!done && performance.now() < stopAt) {
    const t0 = performance.now();
    insert.run(Date.now(), "a row written while the backup runs");
    const ms = performance.now() - t0;
    samples.push(ms);
    if (ms > 20) slow.push({ atMs: Math.round(t0 - start), ms: Math.round(ms) });
    if (rate > 0) {
      // paced: the next write is due at start + n/rate, whatever the last one cost
      const due = start + (samples.length * 1000) / rate;
      const wait = due - performance.now();
      if (wait >= 1) await Bun.sleep(wait);
      else await new Promise((r) => setImmediate(r));
    } else await new Promise((r) => setImmediate(r));
  }
  return samples;
}

if (!existsSync(dbFile) || statSync(dbFile).size < targetBytes) await build();
else console.log(`reusing ${dbFile} (${(statSync(dbFile).size / 1024 / 1024).toFixed(0)} MB)`);

const db = new Database(dbFile);
db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 5000");
// as the serving process does: checkpoints in a worker thread, off the write path (src/ops/checkpointer.ts);
// --auto-checkpoint measures SQLite's default instead (commits checkpoint and fsync themselves)
const closers: Array<() => void> = [];
if (!values["auto-checkpoint"]) {
  await startCheckpointer({
    storage: { sqlite: db },
    log: createLogger({ level: "warn" }),
    onClose: (fn) => void closers.push(fn as () => void),
  });
}
db.exec("CREATE TABLE IF NOT EXISTS bench_writes (id INTEGER PRIMARY KEY, at INTEGER NOT NULL, note TEXT NOT NULL)");

const before = summarise(await writeLoop(db, Bun.sleep(3000), 3000));
const out = join(dataDir, "backups", `backup-bench-${Date.now()}.tar.gz`);
const child = Bun.spawn([...selfCommand(), "--data-dir", dataDir, "--json", "backup", "create", "--out", out], {
  stdout: "pipe",
  stderr: "pipe",
});
const t0 = performance.now();
const slow: Array<{ atMs: number; ms: number }> = [];
const during = summarise(await writeLoop(db, child.exited, 15 * 60_000, slow));
const code = await child.exited;
const backupText = await new Response(child.stdout).text();
if (code !== 0) {
  console.error(await new Response(child.stderr).text());
  process.exit(1);
}
const backup = JSON.parse(backupText) as { sizeBytes: number; snapshotMs: number; totalMs: number };
for (const close of closers) close();
db.close();

console.log(
  JSON.stringify(
    {
      writeRate: rate || "unthrottled",
      databaseMB: Math.round(statSync(dbFile).size / 1024 / 1024),
      backup: {
        archiveMB: Math.round(backup.sizeBytes / 1024 / 1024),
        snapshotMs: Math.round(backup.snapshotMs),
        totalMs: Math.round(backup.totalMs),
        wallMs: Math.round(performance.now() - t0),
      },
      writeLatencyMs: { before, during },
      // writes over 20 ms during the backup, by time since it started (the snapshot is the first snapshotMs)
      slowWrites: slow.sort((a, b) => b.ms - a.ms).slice(0, 10),
    },
    null,
    2,
  ),
);
rmSync(out, { force: true });
if (!values.keep && !values.dir) rmSync(dataDir, { recursive: true, force: true });
