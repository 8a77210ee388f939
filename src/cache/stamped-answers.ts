import type { App } from "../app";
import { VersionedCache } from "./by-version";
import { cacheStampsOf, type StampedCache } from "./stamps";
import { flat } from "../lib/flat-string";

/**
 * Whole answers as JSON text, by a key that names everything a request asks (reader, list,
 * limit, cursor), kept under the stamp of their cache (stamps.ts), which triggers on every table
 * an answer is read from raise, whoever writes: an answer kept under an older stamp is not used,
 * and no writer has to tell anyone. The stamp is read before the answer's rows, so a write made
 * meanwhile raises it past the one the answer is kept under, which then misses. Bounded: when
 * full, the answer kept longest goes first; a longer answer than `maxText` is not kept.
 */
export class StampedAnswers {
  readonly #kept: VersionedCache<string, number, string>;

  constructor(
    readonly stamp: StampedCache,
    max: number,
    private readonly maxText: number,
  ) {
    this.#kept = new VersionedCache(max);
  }

  /**
   * KEY's answer: the one kept under the stamp read now (no statement on SQLite while nothing is
   * written: see CacheStamps.peek), else READ's, kept under that stamp. Answered without a
   * promise where both the stamp and READ are.
   */
  answer(app: App, key: string, read: () => string | Promise<string>): string | Promise<string> {
    const stamps = cacheStampsOf(app);
    const stamp = stamps.peek(this.stamp);
    if (stamp === null) return stamps.read(this.stamp, app.db).then((read_) => this.#answerAt(key, read_, read));
    return this.#answerAt(key, stamp, read);
  }

  #answerAt(key: string, stamp: number, read: () => string | Promise<string>): string | Promise<string> {
    const kept = this.#kept.get(key, stamp);
    if (kept !== undefined) return kept;
    const keep = (text: string) => {
      // NaN: a database without the stamp keeps nothing
      if (text.length <= this.maxText && !Number.isNaN(stamp)) this.#kept.keep(key, stamp, flat(text));
      return text;
    };
    const text = read();
    return text instanceof Promise ? text.then(keep) : keep(text);
  }

  get size(): number {
    return this.#kept.size;
  }
}

/** The key of an answer from the PARTS of its request, written so that no two requests share one. */
export const answerKey = (...parts: Array<string | number>): string => JSON.stringify(parts);
