/**
 * Values made from database rows, kept by the row's id and the version of the row they were
 * made from (a column a trigger raises on every change of what they show, whoever makes it:
 * this process, another one, another node). A read that names a different version misses, so
 * nothing needs to be told of changes. Bounded: when full, the value kept longest goes first.
 * A value made from several rows names all their versions in one (a string of them, VERSION).
 */
export class VersionedCache<V, Version extends number | string = number, Id extends number | string = number> {
  readonly #kept = new Map<Id, { version: Version; value: V }>();

  constructor(private readonly max: number) {}

  get(id: Id, version: Version): V | undefined {
    const kept = this.#kept.get(id);
    return kept !== undefined && kept.version === version ? kept.value : undefined;
  }

  /** What is kept for ID at whatever version (for a read that must name something of it before it learns the version). */
  peek(id: Id): { version: Version; value: V } | undefined {
    return this.#kept.get(id);
  }

  keep(id: Id, version: Version, value: V): void {
    if (!this.#kept.has(id) && this.#kept.size >= this.max) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(id, { version, value });
  }

  get size(): number {
    return this.#kept.size;
  }
}

/**
 * The values of WANTED (id → the version a read named): those KEPT holds at that version as
 * kept, the rest made by MAKE from the rows READ returns for their ids (called only when some
 * are missing: one statement) and kept by the version each row carries (newer than the one
 * named when the row changed meanwhile). An id READ does not return (deleted meanwhile) has no
 * value.
 */
export async function cachedOrRead<V, Row>(
  kept: VersionedCache<V>,
  wanted: ReadonlyMap<number, number>,
  read: (ids: number[]) => Promise<Row[]>,
  make: (row: Row) => { id: number; version: number; value: V },
): Promise<Map<number, V>> {
  const values = new Map<number, V>();
  const missing: number[] = [];
  for (const [id, version] of wanted) {
    const value = kept.get(id, version);
    if (value !== undefined) values.set(id, value);
    else missing.push(id);
  }
  if (missing.length === 0) return values;
  for (const row of await read(missing)) {
    const { id, version, value } = make(row);
    kept.keep(id, version, value);
    values.set(id, value);
  }
  return values;
}
