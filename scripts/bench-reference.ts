/**
 * The reference endpoints of the benchmarks: Elysia doing exactly one bun:sqlite statement
 * per request, on the same pragmas as the server (WAL, synchronous=NORMAL), with no Kysely,
 * no session and no JSON envelope work beyond the answer. A read is measured against
 * `GET /select` (one primary-key SELECT), a write against `POST /insert` (one autocommit
 * INSERT), so each row of scripts/bench.ts has a ratio to a reference that does the same
 * kind of work. Started by startReferences() in scripts/bench-lib.ts as its own process.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Elysia } from "elysia";
import { REFERENCE_CHILD_FLAG, serveChild } from "./bench-lib";

/** rows the SELECT picks from, so its page cache looks like a small real table */
const ROWS = 100_000;

async function runReference(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "socialctl-bench-reference-"));
  const db = new Database(join(dir, "reference.db"), { create: true });
  db.run("PRAGMA journal_mode = WAL");
  db.run("PRAGMA synchronous = NORMAL");
  db.run("CREATE TABLE items (id INTEGER PRIMARY KEY, body TEXT NOT NULL, created_at INTEGER NOT NULL)");
  const seed = db.prepare("INSERT INTO items (body, created_at) VALUES (?, ?)");
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) seed.run(`Reference row ${i} with a few words of text`, Date.now());
  })();
  const select = db.prepare<{ id: number; body: string; created_at: number }, [number]>(
    "SELECT id, body, created_at FROM items WHERE id = ?",
  );
  const insert = db.prepare<{ id: number }, [string, number]>(
    "INSERT INTO items (body, created_at) VALUES (?, ?) RETURNING id",
  );

  const app = new Elysia()
    .get("/select", () => ({ success: true, data: select.get(1 + Math.floor(Math.random() * ROWS)) }))
    .post("/insert", ({ body }) => {
      const text = (body as { content?: unknown })?.content;
      return { success: true, data: insert.get(typeof text === "string" ? text : "", Date.now()) };
    })
    .listen({ port: 0, hostname: "127.0.0.1" });
  serveChild({ url: `http://127.0.0.1:${app.server!.port}` }, async () => {
    await app.stop(true);
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

if (process.argv.includes(REFERENCE_CHILD_FLAG)) await runReference();
