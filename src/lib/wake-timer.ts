/**
 * One pending timer for a worker's next look: `at(ms)` runs RUN in MS unless a run is already
 * due sooner (a later request never pushes an earlier one back); `stop()` cancels it and
 * refuses further requests. RUN is told nothing: it asks again for its next look.
 */
export class WakeTimer {
  #timer: ReturnType<typeof setTimeout> | null = null;
  #dueAt = Infinity;
  #stopped = false;

  constructor(private readonly run: () => void) {}

  get stopped(): boolean {
    return this.#stopped;
  }

  at(ms: number): void {
    if (this.#stopped) return;
    const due = Date.now() + Math.max(0, ms);
    if (this.#timer && this.#dueAt <= due) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#dueAt = due;
    this.#timer = setTimeout(
      () => {
        this.#timer = null;
        this.#dueAt = Infinity;
        if (!this.#stopped) this.run();
      },
      Math.max(0, ms),
    );
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
  }
}
