import { vi } from 'vitest';
import type { Clock } from '../../src/clock.js';

/**
 * The clock a test moves by hand (the service reads it on every call). By default it is the
 * system clock moved forward by `offsetMs`; given a start, it stands still at that instant until
 * the test moves it.
 */
export class MovableClock implements Clock {
  offsetMs = 0;
  constructor(private readonly start?: number) {}
  now(): Date {
    return new Date((this.start ?? Date.now()) + this.offsetMs);
  }
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/**
 * Runs `work` with the process's own `Date` one second ahead, for what reads the system time
 * rather than the service's clock (a token's `iat` counts whole seconds: one signed in this
 * window is of a later second than anything before it, without waiting for that second).
 */
export async function aSecondLater<T>(work: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 1000 });
  try {
    return await work();
  } finally {
    vi.useRealTimers();
  }
}
