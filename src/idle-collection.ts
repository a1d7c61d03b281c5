import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives memory back after a burst of load: one full garbage collection when the process goes idle.
 *
 * Under load V8 grows its young generation (up to 128 MB on Node.js 24) and the old generation
 * with it. V8 collects only when JavaScript allocates, so a service that goes quiet after a burst
 * keeps every page it touched: measured with the benchmark (docs/performance.md, "Memory after
 * load"), 470 MB resident for as long as it stayed idle after 10 s of MCP tools/call, against 218 MB
 * before; one full collection took it to 189 MB (the young generation from 128 MB to 1 MB, the old
 * one from 99 MB to 47 MB: garbage, nothing kept).
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
// burst (measured with the benchmark, where each server idles while the others run: 0.12 of the
// baseline ratio of GET /v1/workflows/:id when the service collected after 10 s; docs/performance.md).
const IDLE_COLLECTION_DEFAULTS = { intervalMs: 10_000, busyShare: 0.1, idleShare: 0.01, quietWindows: 3 } as const;

/**
 * V8's full collection, obtained without exposing `gc` to the service's own context, in its "last
 * resort" flavour, run as V8's own task: it also gives the emptied pages back to the system. A
 * regular full collection shrinks the heap but may keep its pages resident until V8 releases them by
 * itself, which an idle process may never get to: after a 10-minute soak, 665 MB stayed resident with
 * 129 MB of heap (docs/performance.md, "Soak"). Run synchronously from inside a callback, V8 also
 * kept objects the callback no longer reached (measured: 235 MB of 240 MB still used); as its own
 * task, nothing of the caller is on the stack.
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
