/**
 * Gathers what is asked for during one turn of the event loop and hands it over together when
 * the turn ends (setImmediate: every request the loop handed over in that turn has asked by
 * then), for work that costs more per call than per item: a statement and its commit, a round
 * trip. RUN gets at most MAX items at a time and must answer each of them itself; an error it
 * throws is handed to ONFAILURE with the items it was given.
 *
 * With ONEATATIME, a batch is started only once the one before it has finished, and what was
 * asked for meanwhile forms the next: under load the batches grow instead of queueing. Without
 * it every turn's batch is started at once (a connection that pipelines keeps them in order).
 */
export class TurnBatch<T> {
  #items: T[] = [];
  #scheduled = false;
  readonly #running = new Set<Promise<void>>();
  /** set while no batch may start (hold) */
  #held: Promise<void> | null = null;
  /** set while drain runs what is left, held or not */
  #draining = false;

  constructor(
    private readonly run: (items: T[]) => Promise<void>,
    private readonly opts: { max: number; oneAtATime: boolean; onFailure: (error: unknown, items: T[]) => void },
  ) {}

  /** Items added and not yet handed to a batch. */
  get waiting(): number {
    return this.#items.length;
  }

  add(item: T): void {
    this.#items.push(item);
    this.#schedule();
  }

  /**
   * Lets the running batches finish and starts no other until the answer is called (or MAXMS
   * passed): for work that must have to itself what the batches use. Items added meanwhile wait
   * and form the next batch once it is called. Holds come one after another.
   */
  async hold(maxMs: number): Promise<() => void> {
    while (this.#held) await this.#held;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    this.#held = held;
    const timer = setTimeout(() => release(), maxMs);
    void held.then(() => {
      clearTimeout(timer);
      if (this.#held === held) this.#held = null;
      this.#schedule();
    });
    await this.#settled();
    return release;
  }

  /** Runs every item added so far, a hold or not, and settles once none is left or running. */
  async drain(): Promise<void> {
    this.#draining = true;
    try {
      while (this.#items.length || this.#running.size) {
        this.#flush();
        await this.#settled();
      }
    } finally {
      this.#draining = false;
    }
  }

  #blocked(): boolean {
    return (this.opts.oneAtATime && this.#running.size > 0) || (this.#held !== null && !this.#draining);
  }

  #schedule(): void {
    if (this.#scheduled || this.#items.length === 0 || this.#blocked()) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    while (this.#items.length && !this.#blocked()) {
      const items = this.#items.splice(0, this.opts.max);
      const running: Promise<void> = this.run(items)
        .catch((error) => this.opts.onFailure(error, items))
        .finally(() => {
          this.#running.delete(running);
          this.#schedule();
        });
      this.#running.add(running);
    }
  }

  async #settled(): Promise<void> {
    while (this.#running.size) await Promise.all(this.#running);
  }
}
