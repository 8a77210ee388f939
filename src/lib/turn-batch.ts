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
  #running = false;

  constructor(
    private readonly run: (items: T[]) => Promise<void>,
    private readonly opts: { max: number; oneAtATime: boolean; onFailure: (error: unknown, items: T[]) => void },
  ) {}

  add(item: T): void {
    this.#items.push(item);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled || (this.opts.oneAtATime && this.#running)) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    if (this.opts.oneAtATime && this.#running) return;
    while (this.#items.length) {
      const items = this.#items.splice(0, this.opts.max);
      const running = this.run(items).catch((error) => this.opts.onFailure(error, items));
      if (this.opts.oneAtATime) {
        this.#running = true;
        void running.finally(() => {
          this.#running = false;
          if (this.#items.length) this.#schedule();
        });
        return;
      }
    }
  }
}
