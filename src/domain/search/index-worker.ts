import type { Storage } from "../../db";
import { WorkerRequests } from "../../lib/worker-requests";

/**
 * SQLite: the messages' full-text index lives in a database file of its own
 * (Storage.searchIndexPath) and is written here, by a worker thread with its own connection:
 * that database as `main`, the instance database attached as `social` and only read. Indexing
 * (tokenizing, an entry per word and per prefix of it, FTS5's segment merges) thus costs the
 * serving thread nothing and never holds the instance database's write lock: sends and the
 * index go on side by side. Each pass reads the instance database as one snapshot and commits
 * to the index's database at once.
 *
 * What the index holds: the messages with ids up to meta.indexed_to (people's messages not
 * deleted for everyone), as they were when taken in, and every edit and removal queued in
 * social.messages_search_changes up to meta.changes_to (migration
 * 20261203100000_messages_search_database). A pass takes in queued changes of messages already
 * indexed first, then the next messages by id.
 *
 * The file is made again from the messages when it is new, unreadable, of another version of
 * this schema, or of another database (an older one put in place: the message at the mark is not
 * the one the index saw, or the queue's ids went back).
 */
const WORKER_SOURCE = `
import { Database } from "bun:sqlite";
import { rmSync, truncateSync } from "node:fs";
let db = null;
let opts = null;
let s = null;

const FOLD = (column) => "replace(replace(" + column + ", 'ё', 'е'), 'Ё', 'Е')";

function create() {
  db.exec("DROP TABLE IF EXISTS meta");
  db.exec("DROP TABLE IF EXISTS messages_fts");
  db.exec("CREATE TABLE meta (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL, " +
    "indexed_to INTEGER NOT NULL, indexed_cuid TEXT, changes_to INTEGER NOT NULL)");
  db.exec("CREATE VIRTUAL TABLE messages_fts USING fts5(body, content = '', contentless_delete = 1, " +
    "prefix = '" + opts.prefixes + "', tokenize = \\"" + opts.tokenize + "\\")");
  // the changes queued so far are of messages the passes will read afresh
  db.prepare("INSERT INTO meta (id, version, indexed_to, indexed_cuid, changes_to) VALUES (1, ?, 0, NULL, " +
    "(SELECT coalesce(max(id), 0) FROM social.messages_search_changes))").run(opts.version);
}

/** Whether the index is of this schema and of the instance database as it is now. */
function current() {
  const meta = db.query("SELECT name FROM sqlite_master WHERE name = 'meta'").get()
    && db.query("SELECT version, indexed_to, indexed_cuid, changes_to FROM meta").get();
  if (!meta || meta.version !== opts.version) return false;
  const last = db.query("SELECT coalesce(max(id), 0) AS id FROM social.messages").get().id;
  if (last < meta.indexed_to) return false;
  const atMark = db.query("SELECT cuid FROM social.messages WHERE id = ?").get(meta.indexed_to);
  if (atMark && atMark.cuid !== meta.indexed_cuid) return false;
  const queued = db.query("SELECT coalesce((SELECT seq FROM social.sqlite_sequence " +
    "WHERE name = 'messages_search_changes'), 0) AS seq").get().seq;
  return meta.changes_to <= queued;
}

function prepare() {
  const changed = "SELECT message_id FROM social.messages_search_changes WHERE id > ? AND id <= ? AND message_id <= ?";
  s = {
    meta: db.prepare("SELECT indexed_to, changes_to FROM meta"),
    look: db.prepare("SELECT (SELECT coalesce(max(id), 0) FROM social.messages) AS lastMessage, " +
      "(SELECT coalesce(max(id), 0) FROM social.messages_search_changes) AS lastChange, " +
      "indexed_to AS indexedTo, changes_to AS changesTo FROM meta"),
    changesTo: db.prepare("SELECT max(id) AS upto FROM (SELECT id FROM social.messages_search_changes " +
      "WHERE id > ? ORDER BY id LIMIT ?)"),
    drop: db.prepare("DELETE FROM messages_fts WHERE rowid IN (" + changed + ")"),
    readd: db.prepare("INSERT INTO messages_fts (rowid, body) SELECT id, " + FOLD("content") +
      " FROM social.messages WHERE id IN (" + changed + ") AND kind = 'user' AND deleted_at IS NULL"),
    markChanges: db.prepare("UPDATE meta SET changes_to = ?"),
    messagesTo: db.prepare("SELECT max(id) AS upto FROM (SELECT id FROM social.messages " +
      "WHERE id > ? ORDER BY id LIMIT ?)"),
    add: db.prepare("INSERT INTO messages_fts (rowid, body) SELECT id, " + FOLD("content") +
      " FROM social.messages WHERE id > ? AND id <= ? AND kind = 'user' AND deleted_at IS NULL"),
    markMessages: db.prepare("UPDATE meta SET indexed_to = ?, " +
      "indexed_cuid = (SELECT cuid FROM social.messages WHERE id = ?)"),
  };
}

/** One pass in one transaction; answers how many queued changes and message ids it moved past. */
function pass(batch) {
  // DEFERRED: IMMEDIATE would take the write lock of every attached database, the instance's too
  db.exec("BEGIN");
  try {
    const { indexed_to: indexedTo, changes_to: changesTo } = s.meta.get();
    let moved = 0;
    const changes = s.changesTo.get(changesTo, batch).upto;
    if (changes !== null) {
      s.drop.run(changesTo, changes, indexedTo);
      s.readd.run(changesTo, changes, indexedTo);
      s.markChanges.run(changes);
      moved += changes - changesTo;
    }
    const messages = s.messagesTo.get(indexedTo, batch).upto;
    if (messages !== null) {
      s.add.run(indexedTo, messages);
      s.markMessages.run(messages, messages);
      moved += messages - indexedTo;
    }
    db.exec("COMMIT");
    return moved;
  } catch (err) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw err;
  }
}

function open() {
  db = new Database(opts.indexPath);
  db.exec("PRAGMA busy_timeout = " + opts.busyTimeoutMs);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.prepare("ATTACH DATABASE ? AS social").run(opts.databasePath);
  db.exec("BEGIN");
  try {
    if (!current()) create();
    db.exec("COMMIT");
  } catch (err) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw err;
  }
}

self.onmessage = (e) => {
  const m = e.data;
  try {
    if (m.type === "open") {
      opts = m;
      try {
        open();
      } catch (err) {
        // the index is made from the messages: a file SQLite cannot read is made again, emptied in
        // place (the long reads' connection may have it attached already: it sees the new one)
        if (!err || (err.code !== "SQLITE_CORRUPT" && err.code !== "SQLITE_NOTADB")) throw err;
        db?.close();
        for (const suffix of ["-wal", "-shm"]) rmSync(opts.indexPath + suffix, { force: true });
        truncateSync(opts.indexPath, 0);
        open();
      }
      prepare();
      postMessage({ type: "ready" });
    } else if (m.type === "close") {
      db?.close();
      postMessage({ type: "done", id: m.id });
    } else if (m.type === "catchUp") {
      // up to what is committed as it starts: sends that keep coming never keep it going
      const start = s.look.get();
      let moved = 0;
      for (;;) {
        const { indexed_to, changes_to } = s.meta.get();
        if (indexed_to >= start.lastMessage && changes_to >= start.lastChange) break;
        const n = pass(m.batch);
        if (n === 0) break;
        moved += n;
      }
      postMessage({ type: "done", id: m.id, result: { moved, ...s.look.get() } });
    }
  } catch (err) {
    postMessage({ type: m.type === "open" ? "openFailed" : "failed", id: m.id, message: String((err && err.message) || err) });
  }
};
`;

/** Where the index stands: the newest message and queued change, and how far it has taken them in. */
export interface IndexLook {
  lastMessage: number;
  lastChange: number;
  indexedTo: number;
  changesTo: number;
}

/** The index's schema: a file of another version is made again. */
const INDEX_VERSION = 1;
/** How the index splits text into words: as the posts' index and PostgreSQL's lexemes (normalize.ts) do. */
const TOKENIZE = "unicode61 remove_diacritics 2 categories 'L* N* Co So Sk'";
/** Prefix lengths indexed, as for posts: a last word typed halfway reads one doclist. */
const PREFIXES = "2 3 4 5 6";
/** Message ids (and queued changes) taken in per transaction. */
const BATCH = 5_000;
/** How long the worker waits for the index database's lock, should another connection hold it a moment. */
const LOCK_WAIT_MS = 5_000;

/** The worker thread writing one storage's message index, started on first use. */
export class IndexWorker {
  readonly #thread: WorkerRequests;

  constructor(databasePath: string, indexPath: string) {
    this.#thread = new WorkerRequests("message index worker", WORKER_SOURCE, () => ({
      databasePath,
      indexPath,
      busyTimeoutMs: LOCK_WAIT_MS,
      version: INDEX_VERSION,
      tokenize: TOKENIZE,
      prefixes: PREFIXES,
    }));
  }

  /** Takes in every message and change committed before it starts; answers where the index then stands. */
  catchUp(): Promise<IndexLook & { moved: number }> {
    return this.#thread.ask({ type: "catchUp", batch: BATCH }) as Promise<IndexLook & { moved: number }>;
  }

  close(): Promise<void> {
    return this.#thread.close();
  }
}

const workers = new WeakMap<Storage, IndexWorker>();

/** STORAGE's index worker (made on first use, closed with the storage); null without an index file (in memory, PostgreSQL). */
export function indexWorkerOf(storage: Storage): IndexWorker | null {
  let worker = workers.get(storage);
  if (worker) return worker;
  const databasePath = storage.sqlite?.filename;
  if (!databasePath || !storage.searchIndexPath) return null;
  worker = new IndexWorker(databasePath, storage.searchIndexPath);
  workers.set(storage, worker);
  storage.onClose(() => worker.close());
  return worker;
}
