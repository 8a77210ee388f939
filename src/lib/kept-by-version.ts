/**
 * Values made from database rows, kept by the row's id and the version of the row they were
 * made from (a column a trigger raises on every change of what they show, whoever makes it:
 * this process, another one, another node). A read that names a different version misses, so
 * nothing needs to be told of changes. Bounded: when full, the value kept longest goes first.
 * A value made from several rows names all their versions in one (a string of them, VERSION).
 */
export class KeptByVersion<V, Version extends number | string = number> {
  readonly #kept = new Map<number, { version: Version; value: V }>();

  constructor(private readonly max: number) {}

  get(id: number, version: Version): V | undefined {
    const kept = this.#kept.get(id);
    return kept !== undefined && kept.version === version ? kept.value : undefined;
  }

  keep(id: number, version: Version, value: V): void {
    if (!this.#kept.has(id) && this.#kept.size >= this.max) this.#kept.delete(this.#kept.keys().next().value!);
    this.#kept.set(id, { version, value });
  }

  get size(): number {
    return this.#kept.size;
  }
}
