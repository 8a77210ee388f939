/** How long close waits for the thread to finish what it has, and then to exit. */
const CLOSE_WAIT_MS = 5_000;

/**
 * Resolves once thread W has exited, at most CLOSE_WAIT_MS from now. A terminated thread closes
 * the SQLite connections it held as it exits, and the last one out deletes the database's -wal
 * and -shm files: the caller waits for that before anything else touches the data directory.
 */
export function threadExited(w: Worker): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, CLOSE_WAIT_MS);
    w.addEventListener(
      "close",
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/**
 * A worker thread that answers requests, made from SOURCE (module text: a compiled binary has
 * no worker files to load) and started on first use. It is sent OPEN() first and answers
 * `{type: "ready"}` (or `{type: "openFailed", message}`); each request is then sent with an `id`
 * and answered `{type: "done", id, result}` or `{type: "failed", id, message, code?}`. When the
 * thread fails, everything waiting on it fails and the next request starts a new one. The thread
 * never keeps the process alive: requests waiting do, by their promises. It is asked to close
 * with `{type: "close", id}`, answered as a request once it has let go of what it holds.
 */
export class WorkerRequests {
  #starting: Promise<Worker> | null = null;
  #rejectStart: ((err: Error) => void) | null = null;
  /** the thread, from when it is made (#worker: from when it is ready) */
  #spawned: Worker | null = null;
  #worker: Worker | null = null;
  readonly #pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  #nextId = 1;
  #closed = false;

  constructor(
    /** what the thread is, in errors: "read worker" */
    private readonly name: string,
    private readonly source: string,
    private readonly open: () => Record<string, unknown>,
  ) {}

  /** Requests sent and not answered yet. */
  get waiting(): number {
    return this.#pending.size;
  }

  /** MESSAGE's answer (its `result`); a failure as an Error with the worker's message and `code`. */
  async ask(message: Record<string, unknown>): Promise<unknown> {
    if (this.#closed) throw new Error("the database is closed");
    const id = this.#nextId++;
    const answer = new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject }));
    // failed while the thread starts, it is the start's error the caller gets (below)
    answer.catch(() => {});
    try {
      (await this.#start()).postMessage({ ...message, id });
    } catch (err) {
      this.#pending.delete(id);
      throw err;
    }
    return answer;
  }

  #start(): Promise<Worker> {
    return (this.#starting ??= new Promise<Worker>((resolve, reject) => {
      this.#rejectStart = reject;
      const url = URL.createObjectURL(new Blob([this.source], { type: "application/javascript" }));
      const w = new Worker(url);
      this.#spawned = w;
      w.onmessage = (e: MessageEvent) => {
        const reply = e.data as { type: string; id: number; result?: unknown; message?: string; code?: string };
        if (reply.type === "ready") {
          URL.revokeObjectURL(url);
          (w as unknown as { unref(): void }).unref();
          this.#worker = w;
          this.#rejectStart = null;
          resolve(w);
        } else if (reply.type === "openFailed") {
          reject(new Error(`the ${this.name} did not start: ${reply.message}`));
          this.#failAll(reply.message ?? "it did not start");
        } else {
          const pending = this.#pending.get(reply.id);
          this.#pending.delete(reply.id);
          if (reply.type === "done") pending?.resolve(reply.result);
          else pending?.reject(Object.assign(new Error(reply.message), { code: reply.code }));
        }
      };
      w.onerror = (e) => {
        const why = (e as ErrorEvent).message ?? `${this.name} failed`;
        reject(new Error(why));
        this.#failAll(why);
      };
      w.postMessage({ type: "open", ...this.open() });
    }));
  }

  /** The thread died: what waits on it fails, and the next request starts a new one. */
  #failAll(why: string): void {
    this.#rejectStart?.(new Error(`${this.name} failed: ${why}`));
    this.#rejectStart = null;
    this.#spawned?.terminate();
    this.#spawned = null;
    this.#worker = null;
    this.#starting = null;
    for (const p of this.#pending.values()) p.reject(new Error(`${this.name} failed: ${why}`));
    this.#pending.clear();
  }

  /**
   * Takes no more requests, lets the thread finish those it has and close what it holds (it is
   * sent `{type: "close"}` and answers it as a request), for at most CLOSE_WAIT_MS, then ends it
   * and waits for it to exit.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const worker = this.#worker;
    if (worker) {
      const id = this.#nextId++;
      const closed = new Promise((resolve, reject) => this.#pending.set(id, { resolve, reject }));
      worker.postMessage({ type: "close", id });
      // a timer that is cleared: a pending sleep would keep the process alive after closing
      let timer: ReturnType<typeof setTimeout> | undefined;
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
      await Promise.race([closed.catch(() => {}), waited]);
      clearTimeout(timer);
    }
    // a thread still starting is ended too, and may be opening the database as it goes
    const thread = this.#spawned;
    const exited = thread ? threadExited(thread) : undefined;
    this.#failAll("the database is closed");
    await exited;
  }
}
