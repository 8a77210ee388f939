import type { App } from "../app";
import { VersionedCache } from "./by-version";
import { cacheStampsOf, type StampedCache } from "./stamps";
import { flat } from "../lib/flat-string";

/** Most answers a cache of whole answers holds, all readers together: the one kept longest goes first. */
export const MAX_KEPT_ANSWERS = 1_000;
/** A longer answer (a page of many long items) is not kept. */
export const MAX_KEPT_TEXT = 32 * 1024;

/**
 * Whole answers as JSON text, by a key that names everything a request asks (reader, list,
 * limit, cursor), each kept under the version it was read at: a read that names another
 * version misses, and the answer is read again and kept under the new one. Bounded: when full,
 * the answer kept longest goes first; a longer answer than `maxText` is not kept.
 */
export class KeptAnswers<Version extends number | string> {
  readonly #kept: VersionedCache<string, Version, string>;

  constructor(
    max = MAX_KEPT_ANSWERS,
    private readonly maxText = MAX_KEPT_TEXT,
  ) {
    this.#kept = new VersionedCache(max);
  }

  /**
   * KEY's answer kept under VERSION, else READ's, kept under VERSION (read before READ's rows: a
   * change made meanwhile moves it past the one kept under, which then misses). Answered without
   * a promise where READ is.
   */
  answerAt(key: string, version: Version, read: () => string | Promise<string>): string | Promise<string> {
    const kept = this.#kept.get(key, version);
    if (kept !== undefined) return kept;
    const keep = (text: string) => {
      if (text.length <= this.maxText) this.#kept.keep(key, version, flat(text));
      return text;
    };
    const text = read();
    return text instanceof Promise ? text.then(keep) : keep(text);
  }

  get size(): number {
    return this.#kept.size;
  }
}

/**
 * KeptAnswers under the stamp of their cache (stamps.ts), which triggers on every table an
 * answer is read from raise, whoever writes: an answer kept under an older stamp is not used,
 * and no writer has to tell anyone.
 */
export class StampedAnswers extends KeptAnswers<number> {
  constructor(
    readonly stamp: StampedCache,
    max?: number,
    maxText?: number,
  ) {
    super(max, maxText);
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

  // NaN: a database without the stamp keeps nothing
  #answerAt = (key: string, stamp: number, read: () => string | Promise<string>) =>
    Number.isNaN(stamp) ? read() : this.answerAt(key, stamp, read);
}

/** The key of an answer from the PARTS of its request, written so that no two requests share one. */
export const answerKey = (...parts: Array<string | number>): string => JSON.stringify(parts);
