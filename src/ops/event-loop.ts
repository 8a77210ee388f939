import { defineService, type App } from "../app";

/** How often the event loop's lateness is sampled. */
const SAMPLE_MS = 250;
/** A late sample is remembered this long: a node that stalled is trusted again once it ran on time for a while. */
const REMEMBER_MS = 5000;

/**
 * How late this process's event loop runs: a timer due every SAMPLE_MS notes by how much it
 * fired late. A starved or stopped process runs its timers late by that long, which no
 * request-level check sees (a probe that gets through at all is answered quickly once it runs).
 */
export class EventLoopLag {
  private lastTick = performance.now();
  private lastLagMs = 0;
  /** the latest sample that was late by more than any since, and when it was taken */
  private worst = { lagMs: 0, at: 0 };
  private readonly timer: ReturnType<typeof setInterval>;

  constructor() {
    this.timer = setInterval(() => {
      const now = performance.now();
      this.lastLagMs = Math.max(0, now - this.lastTick - SAMPLE_MS);
      this.lastTick = now;
      if (this.lastLagMs >= this.worst.lagMs || now - this.worst.at > REMEMBER_MS)
        this.worst = { lagMs: this.lastLagMs, at: now };
    }, SAMPLE_MS);
    // the sampler alone never keeps a process alive
    this.timer.unref?.();
  }

  /**
   * Milliseconds late: the worst sample of the last few seconds, or the pending one's if it is
   * overdue already (the process is stalled now, or just resumed).
   */
  lagMs(): number {
    const now = performance.now();
    const overdue = now - this.lastTick - SAMPLE_MS;
    const remembered = now - this.worst.at <= REMEMBER_MS ? this.worst.lagMs : 0;
    return Math.round(Math.max(this.lastLagMs, remembered, overdue, 0));
  }

  stop(): void {
    clearInterval(this.timer);
  }
}

const eventLoopLagService = defineService("ops:event-loop-lag", (app) => {
  const lag = new EventLoopLag();
  app.onClose(() => lag.stop());
  return lag;
});

/** The App's event-loop lag sampler, started on first use (the server starts it as it starts serving). */
export const eventLoopLag = (app: App): EventLoopLag => app.services.get(eventLoopLagService);
