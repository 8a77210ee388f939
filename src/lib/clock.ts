/** Time source on the App, so tests can move time (token expiry, holds, timeouts). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock tests can advance; starts at real time. */
export class ManualClock implements Clock {
  private offsetMs = 0;
  now(): number {
    return Date.now() + this.offsetMs;
  }
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

export const toIso = (ms: number): string => new Date(ms).toISOString();
export const toUnixSeconds = (ms: number): number => Math.floor(ms / 1000);
