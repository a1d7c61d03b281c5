import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives memory back after a burst of load: one full garbage collection when the process goes idle.
 *
 * Under load V8 grows its young generation and the old generation with it. V8 collects only when
 * JavaScript allocates, so a service that goes quiet after a burst keeps every page it touched,
 * though nearly all of it is garbage that one full collection frees (docs/performance.md, "Memory
 * after load").
 *
 * Node.js gives a process its collector only with `--expose-gc`; the flag set here applies to
 * contexts made after it, so a new context hands the function over. The service is not started
 * with the flag, so no module of it (or of a dependency) sees a global `gc`.
 */

export interface IdleCollection {
  stop(): void;
}

interface Options {
  /** How often the process's CPU time is read. */
  intervalMs: number;
  /** A window with at least this share of one CPU is busy. */
  busyShare: number;
  /** A window with at most this share of one CPU is idle. */
  idleShare: number;
  /** Idle windows in a row that make the process quiet: then it collects. */
  quietWindows: number;
  /** Called after each collection, with the heap before and after (bytes). */
  onCollect?: (before: number, after: number, ms: number) => void;
  /** The process's CPU time in microseconds (injected by tests). */
  cpuMicros?: () => number;
  /** The collector (injected by tests); by default V8's full collection. */
  collect?: () => void | Promise<void>;
}

// Quiet means 30 s without work: traffic that pauses for less (a burst every few seconds, a load
// balancer's health checks) keeps its heap grown, since shrinking it costs a regrowth in the next
// burst (docs/decisions.md, "Performance").
const IDLE_COLLECTION_DEFAULTS = { intervalMs: 10_000, busyShare: 0.1, idleShare: 0.01, quietWindows: 3 } as const;

/**
 * V8's full collection, obtained without exposing `gc` to the service's own context, in its "last
 * resort" flavour, run as V8's own task: it also gives the emptied pages back to the system. A
 * regular full collection shrinks the heap but may keep its pages resident until V8 releases them by
 * itself, which an idle process may never get to (docs/decisions.md, "Performance"). Run
 * synchronously from inside a callback, V8 also keeps objects the callback no longer reaches; as its
 * own task, nothing of the caller is on the stack.
 */
export function fullCollector(): () => Promise<void> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: { type: 'major'; execution: 'async'; flavor: 'last-resort' }) => Promise<void>;
  return () => gc({ type: 'major', execution: 'async', flavor: 'last-resort' });
}

/**
 * After a window in which the process used at least `busyShare` of a CPU, the `quietWindows`-th
 * window in a row in which it used at most `idleShare` runs one full collection; then it waits for
 * the next busy window. An idle process is never collected twice, and a busy one never.
 */
export function startIdleCollection(options: Partial<Options> = {}): IdleCollection {
  const { intervalMs, busyShare, idleShare, quietWindows } = { ...IDLE_COLLECTION_DEFAULTS, ...options };
  const cpuMicros =
    options.cpuMicros ??
    (() => {
      const usage = process.cpuUsage();
      return usage.user + usage.system;
    });
  const collect = options.collect ?? fullCollector();
  let last = cpuMicros();
  let wasBusy = false;
  let idleInRow = 0;
  const timer = setInterval(() => {
    const now = cpuMicros();
    const share = (now - last) / 1000 / intervalMs;
    last = now;
    idleInRow = share <= idleShare ? idleInRow + 1 : 0;
    if (share >= busyShare) {
      wasBusy = true;
    } else if (wasBusy && idleInRow >= quietWindows) {
      wasBusy = false;
      const before = process.memoryUsage().heapUsed;
      const startedAt = performance.now();
      void Promise.resolve(collect()).then(() => {
        options.onCollect?.(before, process.memoryUsage().heapUsed, performance.now() - startedAt);
        // The collection's own CPU time does not count towards the next window.
        last = cpuMicros();
      });
    }
  }, intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
