import type { Compilable, CompiledQuery } from "kysely";
import type { Db } from "./index";
import { engineOf } from "./engine";
import { directRunnerOf } from "./sqlite-dialect";
import { poolRunnerOf } from "./postgres-dialect";

/** Stands in for the per-call value named KEY while a query is compiled once. */
class Slot {
  constructor(readonly key: string) {}
}

const standIns = <V>(): V => new Proxy({}, { get: (_, key) => new Slot(String(key)) }) as V;

/**
 * A hot query compiled once per shape and run with fresh values. Building and compiling a
 * Kysely query (joins, subqueries, keyset conditions) costs more CPU than SQLite spends
 * running a small one, so the compiled SQL is kept (the dialect adapter then reuses its
 * prepared statement; Bun.SQL prepares per connection by SQL text) and only the parameters
 * are filled in per call. On SQLite the statement then runs straight on bun:sqlite
 * (sqlite-dialect.ts DirectRunner), without Kysely's executor around it.
 *
 * BUILD gets stand-ins in place of VALUES: use them only as plain query values (a `where`
 * operand, a `set` or `values` field), never to decide the query's structure (no `in` lists,
 * no branching on them). SHAPE decides the structure and KEY must name it. Kysely plugins
 * that rewrite queries run only when a shape is first compiled (the app uses none).
 */
export class ShapedQuery<V extends object, S, R> {
  readonly #compiled = new Map<string, CompiledQuery<R>>();

  constructor(
    private readonly build: (db: Db, values: V, shape: S) => Compilable<R>,
    private readonly key: (shape: S) => string,
    /** bound on cached shapes (a shape has a few cursor/limit variants, so this is never reached in practice) */
    private readonly maxShapes = 256,
  ) {}

  async execute(db: Db, shape: S, values: V): Promise<R[]> {
    const compiled = this.#compiledFor(db, shape);
    const parameters = this.#parameters(compiled, values);
    // straight on SQLite's prepared statement or PostgreSQL's pool where Kysely's executor would add nothing
    const rows = directRunnerOf(db)?.run(db, compiled, parameters) ?? poolRunnerOf(db)?.run(db, compiled, parameters);
    return rows ?? (await db.executeQuery<R>({ ...compiled, parameters })).rows;
  }

  /**
   * The rows now, without a promise, where execute would run the statement straight on SQLite;
   * undefined where it goes through Kysely (PostgreSQL, plugins, a transaction holding the
   * connection): call execute then. For reads answered in one synchronous step when all else
   * they need is kept.
   */
  runNow(db: Db, shape: S, values: V): R[] | undefined {
    const direct = directRunnerOf(db);
    if (!direct) return undefined;
    const compiled = this.#compiledFor(db, shape);
    return direct.run(db, compiled, this.#parameters(compiled, values));
  }

  /**
   * THEN of the rows: called now, without a promise, where the statement runs straight on
   * SQLite (runNow), else once execute has them. For reads whose answer is made synchronously
   * when all else it needs is kept.
   */
  withRows<T>(db: Db, shape: S, values: V, then: (rows: R[]) => T | Promise<T>): T | Promise<T> {
    const rows = this.runNow(db, shape, values);
    return rows !== undefined ? then(rows) : this.execute(db, shape, values).then(then);
  }

  /** The statement execute would run for SHAPE and VALUES, with its parameters (for tests that read its plan). */
  compiledWith(db: Db, shape: S, values: V): CompiledQuery<R> {
    const compiled = this.#compiledFor(db, shape);
    return { ...compiled, parameters: this.#parameters(compiled, values) };
  }

  #compiledFor(db: Db, shape: S): CompiledQuery<R> {
    // the SQL text is the engine's own (placeholders, quoting): one process may hold both
    const key = `${engineOf(db)}:${this.key(shape)}`;
    let compiled = this.#compiled.get(key);
    if (!compiled) {
      compiled = this.build(db, standIns<V>(), shape).compile();
      if (this.#compiled.size >= this.maxShapes) this.#compiled.clear();
      this.#compiled.set(key, compiled);
    }
    return compiled;
  }

  #parameters(compiled: CompiledQuery<R>, values: V): unknown[] {
    const given = values as Record<string, unknown>;
    const { parameters } = compiled;
    const out = new Array<unknown>(parameters.length);
    for (let i = 0; i < parameters.length; i++) {
      const p = parameters[i];
      out[i] = p instanceof Slot ? given[p.key] : p;
    }
    return out;
  }
}

/** A query with a single shape, compiled once: later calls only bind their named parameters. */
export function precompiled<P extends object, R>(
  build: (db: Db, params: P) => Compilable<R>,
): (db: Db, params: P) => Promise<R[]> {
  const query = new ShapedQuery<P, null, R>(
    (db, values) => build(db, values),
    () => "",
  );
  return (db, params) => query.execute(db, null, params);
}

/**
 * precompiled, with the rows handed to THEN at once (no promise) where the statement runs
 * straight on SQLite (ShapedQuery.withRows), else once they are read: for the statements of a
 * hot write, where each promise between them is CPU the write pays.
 */
export function precompiledNow<P extends object, R>(
  build: (db: Db, params: P) => Compilable<R>,
): <T>(db: Db, params: P, then: (rows: R[]) => T) => T | Promise<T> {
  const query = new ShapedQuery<P, null, R>(
    (db, values) => build(db, values),
    () => "",
  );
  return (db, params, then) => query.withRows(db, null, params, then);
}

/** What rowSplitter is given per part of a row: the part's column prefix ("" for unprefixed) and its columns. */
export type RowParts<Parts> = {
  [P in keyof Parts]: readonly [prefix: string, columns: readonly (keyof Parts[P] & string)[]];
};

const COLUMN_NAME = /^[a-z_][a-z0-9_]*$/;

/**
 * Splits the rows of one statement that joins tables into one object per table, each with its
 * own column names: the statement selects every column PARTS names (its select list built from
 * the same arrays, never `table.*`), a part's columns aliased `<prefix><column>` where names
 * would collide. Each part is made by one object literal, compiled once from those names (a
 * literal makes an object of fixed shape at once, many times cheaper for a wide row than adding
 * it key by key).
 */
export function rowSplitter<Parts extends Record<string, object>>(parts: RowParts<Parts>): (row: object) => Parts {
  const fields: string[] = [];
  for (const [part, [prefix, columns]] of Object.entries(parts) as Array<
    [string, readonly [string, readonly string[]]]
  >) {
    for (const name of [part, prefix, ...columns])
      if (name !== "" && !COLUMN_NAME.test(name)) throw new Error(`rowSplitter: ${name} is not a column name`);
    fields.push(`${part}: { ${columns.map((c) => `${c}: row.${prefix}${c}`).join(", ")} }`);
  }
  // the names are the program's own column names, checked above: nothing from outside enters the code
  return new Function("row", `return { ${fields.join(", ")} };`) as (row: object) => Parts;
}

/**
 * A read of rows by a list of ids, compiled once per list length (BUILD gets the ids as
 * stand-ins, for an `in` list): for reads by the ids a page names, whose count varies a little.
 * No ids: no statement.
 */
export function compiledByIds<R>(
  build: (db: Db, ids: number[]) => Compilable<R>,
): (db: Db, ids: Iterable<number>) => Promise<R[]> {
  const read = compiledForViewerByIds<R>((db, _viewer, ids) => build(db, ids));
  return (db, ids) => read(db, 0, ids);
}

/** compiledByIds for a read that also names the viewer (BUILD gets a stand-in for it too). */
export function compiledForViewerByIds<R>(
  build: (db: Db, viewer: number, ids: number[]) => Compilable<R>,
): (db: Db, viewer: number, ids: Iterable<number>) => Promise<R[]> {
  const query = new ShapedQuery(
    (db: Db, values: Record<string, number>, shape: { count: number }) =>
      build(
        db,
        values.viewer!,
        Array.from({ length: shape.count }, (_, i) => values[`id${i}`]!),
      ),
    (shape) => String(shape.count),
  );
  return async (db, viewer, ids) => {
    const values: Record<string, number> = { viewer };
    let count = 0;
    for (const id of ids) values[`id${count++}`] = id;
    return count === 0 ? [] : query.execute(db, { count }, values);
  };
}
