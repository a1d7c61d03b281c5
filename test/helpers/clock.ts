import type { Clock } from '../../src/clock.js';

/** The system clock moved forward by `offsetMs`, which a test sets to jump in time (the service reads it on every call). */
export class MovableClock implements Clock {
  offsetMs = 0;
  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}
