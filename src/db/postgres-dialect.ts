import {
  CompiledQuery,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type DatabaseConnection,
  type DataTypeNode,
  type Dialect,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from "kysely";

/*
 * Kysely on PostgreSQL through Bun's built-in client (Bun.SQL): no driver package in the
 * binary, and faster than node-postgres under Bun (docs/architecture.md, "Standard parts and
 * why"). The dialect keeps the app's one schema vocabulary working on both engines:
 * an `integer` column is 64-bit (as every SQLite integer is: ids, millisecond times), an
 * auto-increment key is an identity column, and results hold plain numbers.
 */

/** int8 (count(*), bigint columns) and numeric (sum()) arrive as text: the app's values are safe integers. */
const NUMERIC_OIDS = new Set([20, 1700]);

function toPostgresValue(v: unknown): unknown {
  // the schema stores flags as 0/1 integers and times as epoch milliseconds on both engines;
  // a flag goes as untyped text, which the server reads as whatever the context needs (an
  // integer column here, a boolean in Kysely's own catalog queries)
  if (typeof v === "boolean") return v ? "1" : "0";
  if (v instanceof Date) return v.getTime();
  if (v === undefined) return null;
  // PostgreSQL's text cannot hold NUL (SQLite's can): it becomes U+FFFD, so input carrying one
  // is stored with the replacement character and a lookup by it finds nothing, never a 500
  if (typeof v === "string" && v.includes("\0")) return v.replaceAll("\0", "\uFFFD");
  return v;
}

type Reserved = Awaited<ReturnType<Bun.SQL["reserve"]>>;
type Rows = Record<string, unknown>[] & {
  count: number;
  affectedRows?: number;
  command: string | null;
  columns?: { name: string; type: number }[] | null;
};

const WRITE_COMMANDS = new Set(["INSERT", "UPDATE", "DELETE", "MERGE"]);

/** A statement that writes nothing when run on its own: a SELECT (a data-modifying CTE begins WITH; a lock it takes is let go at once). */
const PLAIN_SELECT = /^\s*select\b/i;

/** A SELECT that takes no row lock, so never waits for another transaction (MVCC): safe to pipeline. */
const NEVER_WAITS = /^\s*select\b(?![\s\S]*\bfor\s+(?:update|no\s+key\s+update|share|key\s+share)\b)/i;

/**
 * One Kysely connection: a connection reserved from the pool, for one query or for a whole
 * transaction (or a `db.connection()` block: the migrator's advisory lock is per session).
 */
class BunSqlConnection implements DatabaseConnection {
  /** a transaction's BEGIN, held back to go in one round trip with the statement after it (see begin) */
  #begin: string | null = null;

  constructor(
    readonly reserved: Reserved,
    private readonly onWrite: () => void,
    private readonly counter: { statements: number },
  ) {}

  /**
   * Opens a transaction with BEGIN (the text given) sent together with the transaction's first
   * statement when that is a plain SELECT: the two cost one round trip. Were BEGIN refused, the
   * SELECT would run on its own, which changes nothing, and the error is thrown; a first statement
   * that may write waits for BEGIN's answer first. A transaction that runs nothing sends nothing.
   */
  begin(text: string): void {
    this.#begin = text;
  }

  /** Sends the held-back BEGIN (before a statement that may write, or a commit) and waits for its answer. */
  async #begun(): Promise<void> {
    const text = this.#begin;
    if (text === null) return;
    this.#begin = null;
    this.counter.statements++;
    await this.reserved.unsafe(text, []);
  }

  /** Ends the transaction with TEXT (commit, rollback): nothing to send when it never began on the server. */
  async end(text: string): Promise<void> {
    if (this.#begin !== null) {
      this.#begin = null;
      return;
    }
    await this.executeQuery(CompiledQuery.raw(text));
  }

  async executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    const trigger = translateSqliteTrigger(query.sql);
    if (trigger) {
      await this.#begun();
      for (const statement of trigger) await this.reserved.unsafe(statement);
      return { rows: [] };
    }
    const parameters = query.parameters.map(toPostgresValue) as unknown[];
    let rows: Rows;
    if (this.#begin !== null && PLAIN_SELECT.test(query.sql)) {
      const begin = this.#begin;
      this.#begin = null;
      this.counter.statements += 2;
      // sent in this order, answered together (Bun.SQL pipelines a connection's queries)
      [, rows] = (await Promise.all([
        this.reserved.unsafe(begin, []),
        this.reserved.unsafe(query.sql, parameters),
      ])) as [unknown, Rows];
    } else {
      await this.#begun();
      this.counter.statements++;
      rows = (await this.reserved.unsafe(query.sql, parameters)) as Rows;
    }
    const write = readResult(rows, this.onWrite);
    return {
      rows: [...rows] as R[],
      ...(write ? { numAffectedRows: BigInt(rows.affectedRows ?? rows.count) } : {}),
    };
  }

  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error("streaming queries are not used by this app");
  }
}

/** Turns ROWS' int8 and numeric columns into numbers in place; true (after calling ONWRITE) when the statement wrote. */
function readResult(rows: Rows, onWrite: () => void): boolean {
  const numeric = rows.columns?.filter((c) => NUMERIC_OIDS.has(c.type)).map((c) => c.name) ?? [];
  if (numeric.length)
    for (const row of rows)
      for (const name of numeric) {
        const v = row[name];
        if (typeof v === "string") row[name] = Number(v);
      }
  const write = rows.command !== null && WRITE_COMMANDS.has(rows.command);
  if (write) onWrite();
  return write;
}

/**
 * Runs compiled statements of the storage's own Kysely (`root`: not a transaction's, nor a
 * `db.connection()` block's, whose statements must share a session) without Kysely's executor.
 * A read that takes no row lock goes straight to the pool, which gives it a connection and
 * pipelines it with others there; any other statement gets a connection of its own while it
 * runs. A statement run alone is a transaction of its own, as it would be through Kysely.
 */
export class PostgresPoolRunner {
  /** the Kysely whose statements run here (set once it is made) */
  root: Kysely<any> | null = null;

  constructor(
    private readonly pool: Bun.SQL,
    private readonly onWrite: () => void,
    private readonly counter: { statements: number },
  ) {}

  /** The rows of QUERY run with PARAMETERS, or undefined when DB is not the root or has plugins (go through Kysely). */
  run<R>(db: Kysely<any>, query: CompiledQuery<R>, parameters: unknown[]): Promise<R[]> | undefined {
    if (db !== this.root || db.getExecutor().plugins.length !== 0) return undefined;
    this.counter.statements++;
    for (let i = 0; i < parameters.length; i++) parameters[i] = toPostgresValue(parameters[i]);
    const rows = this.#neverWaits(query) ? this.pool.unsafe(query.sql, parameters) : this.#alone(query.sql, parameters);
    return (rows as Promise<Rows>).then((rows) => {
      readResult(rows, this.onWrite);
      return rows as unknown as R[];
    });
  }

  /** NEVER_WAITS of each compiled statement, tested once (a compiled statement is made once per shape). */
  readonly #waitless = new WeakMap<CompiledQuery, boolean>();

  #neverWaits(query: CompiledQuery): boolean {
    let answer = this.#waitless.get(query);
    if (answer === undefined) this.#waitless.set(query, (answer = NEVER_WAITS.test(query.sql)));
    return answer;
  }

  /**
   * SQL on a connection of its own: a statement that may wait for a row lock (a write, a locking
   * read) would hold up every statement the pool had pipelined behind it on its connection.
   */
  async #alone(sql: string, parameters: unknown[]): Promise<unknown> {
    const reserved = await this.pool.reserve();
    try {
      return await reserved.unsafe(sql, parameters);
    } finally {
      reserved.release();
    }
  }
}

/** Kysely's PostgreSQL adapter, carrying the pool's runner (transactions of a Kysely share its adapter). */
class BunPostgresAdapter extends PostgresAdapter {
  constructor(readonly pooled: PostgresPoolRunner) {
    super();
  }
}

/** The PostgresPoolRunner behind DB (or a transaction of it) when DB is on PostgreSQL through this dialect. */
export const poolRunnerOf = (db: Kysely<any>): PostgresPoolRunner | undefined => {
  const adapter = db.getExecutor().adapter;
  return adapter instanceof BunPostgresAdapter ? adapter.pooled : undefined;
};

class BunSqlDriver implements Driver {
  constructor(
    private readonly pool: Bun.SQL,
    private readonly onWrite: () => void,
    private readonly counter: { statements: number },
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new BunSqlConnection(await this.pool.reserve(), this.onWrite, this.counter);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    let begin = "begin";
    if (settings.isolationLevel) begin += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode) begin += ` ${settings.accessMode}`;
    (connection as BunSqlConnection).begin(begin);
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as BunSqlConnection).end("commit");
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await (connection as BunSqlConnection).end("rollback");
  }

  async savepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`savepoint "${name}"`));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`rollback to savepoint "${name}"`));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw(`release savepoint "${name}"`));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as BunSqlConnection).reserved.release();
  }

  async destroy(): Promise<void> {
    await this.pool.close();
  }
}

const SQLITE_TRIGGER =
  /^\s*CREATE TRIGGER (\w+) (AFTER|BEFORE) (INSERT|DELETE|UPDATE(?: OF \w+(?:\s*,\s*\w+)*)?) ON (\w+)\s*(?:WHEN ([\s\S]*?))?\s*BEGIN\s([\s\S]*);?\s*END\s*$/i;

const SQLITE_DROP_TRIGGER = /^\s*DROP TRIGGER (?:IF EXISTS )?(\w+)\s*;?\s*$/i;

/**
 * Migrations write row triggers in SQLite's form (`CREATE TRIGGER t AFTER INSERT ON x WHEN …
 * BEGIN …; END`, rows named new and old); on PostgreSQL the same trigger is a plpgsql function
 * with the body and a FOR EACH ROW trigger calling it, so one migration serves both engines;
 * a `DROP TRIGGER t` (which names no table) drops that function. Returns the statements, or
 * null for any other SQL.
 */
export function translateSqliteTrigger(text: string): string[] | null {
  // SQLite's DROP TRIGGER names no table (PostgreSQL's must): dropping the trigger's function
  // drops the trigger with it
  const drop = SQLITE_DROP_TRIGGER.exec(text);
  if (drop) return [`DROP FUNCTION IF EXISTS ${drop[1]}_fn() CASCADE`];
  const m = SQLITE_TRIGGER.exec(text);
  if (!m) return null;
  const [, name, timing, event, table, when, body] = m;
  // a BEFORE trigger must hand the row on or the change is skipped; AFTER ones return nothing
  const result = timing!.toUpperCase() === "BEFORE" ? (event!.toUpperCase() === "DELETE" ? "OLD" : "NEW") : "NULL";
  const statements = body!.trim().replace(/;?\s*$/, ";");
  return [
    `CREATE OR REPLACE FUNCTION ${name}_fn() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN ${statements} RETURN ${result}; END $fn$`,
    `CREATE TRIGGER ${name} ${timing} ${event} ON ${table} FOR EACH ROW ${when ? `WHEN (${when.trim()})` : ""} EXECUTE FUNCTION ${name}_fn()`,
  ];
}

/** The schema vocabulary of the migrations, read the way SQLite reads it (see the top of this file). */
class AppPostgresQueryCompiler extends PostgresQueryCompiler {
  protected override visitDataType(node: DataTypeNode): void {
    this.append(node.dataType === "integer" ? "bigint" : node.dataType);
  }

  protected override getAutoIncrement(): string {
    return "generated by default as identity";
  }
}

export interface PostgresDialectOptions {
  url: string;
  /** pooled connections (each transaction holds one while it runs) */
  max?: number;
  /** called for every INSERT, UPDATE, DELETE run through this dialect */
  onWrite?: () => void;
  /** counts every statement run (Storage.statements) */
  counter?: { statements: number };
}

/** Kysely's PostgreSQL adapter and introspector over a Bun.SQL pool. */
export function bunPostgresDialect(
  opts: PostgresDialectOptions,
): Dialect & { pool: Bun.SQL; pooled: PostgresPoolRunner } {
  const pool = new Bun.SQL(opts.url, { max: opts.max ?? 10, idleTimeout: 60 });
  const counter = opts.counter ?? { statements: 0 };
  const written = opts.onWrite ?? (() => {});
  const onWrite = () => written();
  const pooled = new PostgresPoolRunner(pool, onWrite, counter);
  return {
    pool,
    pooled,
    createAdapter: () => new BunPostgresAdapter(pooled),
    createDriver: () => new BunSqlDriver(pool, onWrite, counter),
    createIntrospector: (db: Kysely<any>) => new PostgresIntrospector(db),
    createQueryCompiler: (): QueryCompiler => new AppPostgresQueryCompiler(),
  };
}
