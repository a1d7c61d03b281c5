/**
 * The service's metrics in the Prometheus text exposition format (version 0.0.4). The format is
 * small enough to write by hand, which keeps a client library and its global registry out of
 * the process: every app instance has its own registry, so tests running several instances in
 * one process never mix their counts.
 */

/** Seconds. Most answers take milliseconds; the top buckets catch database and provider timeouts. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/**
 * Distinct (route, status) series kept before new ones are folded into route="other". Route
 * labels are route templates, so the real number is small; the cap only matters if a label
 * ever carried something a client chose.
 */
const MAX_SERIES = 2000;

export type RateLimitKind = 'user' | 'session' | 'anon' | 'address';
/** hit: kept artefacts served; miss: built; refused: over the archive bound (the kept refusal). */
type InstallArtifactOutcome = 'hit' | 'miss' | 'refused';

/** One cache's counts (src/cache/bounded.ts). */
interface CacheGauge {
  name: string;
  size: number;
  max: number;
  hits: number;
  misses: number;
}

interface PoolStats {
  /** Connections open (busy or idle). */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  max: number;
}

interface RequestSeries {
  route: string;
  status: string;
  count: number;
  sum: number;
  /** Non-cumulative counts per bucket; the last slot is +Inf. */
  buckets: number[];
}

export interface MetricsRegistry {
  /** Records one answered request; `route` must be a template (`scope.route`), never a raw path. */
  observeRequest(route: string, status: number, seconds: number): void;
  rateLimited(kind: RateLimitKind): void;
  /** One lookup of a deployment's install artefacts (src/install/artifacts.ts). */
  installArtifactLookup(outcome: InstallArtifactOutcome): void;
  /** A promise rejection nobody handled, recorded instead of ending the process (src/main.ts). */
  unhandledRejection(): void;
  /** The exposition text, with the gauges read at this moment. */
  render(gauges: { pool: PoolStats; database: string; caches: readonly CacheGauge[] }): string;
}

/** Label values are escaped as the format requires: backslash, double quote and newline. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labels(pairs: Record<string, string>): string {
  const inner = Object.entries(pairs)
    .map(([k, v]) => `${k}="${escapeLabel(v)}"`)
    .join(',');
  return inner ? `{${inner}}` : '';
}

/** Prometheus floats: integers as such, others without exponent noise for typical values. */
function num(value: number): string {
  if (value === Infinity) return '+Inf';
  if (Number.isInteger(value)) return String(value);
  return String(Number(value.toPrecision(12)));
}

export function createMetricsRegistry(): MetricsRegistry {
  // By route, then by status: a route is one of a few dozen template strings made once (their
  // hashes are kept with them), so finding a series builds no key on the request path.
  const requests = new Map<string, Map<number, RequestSeries>>();
  let seriesCount = 0;
  const refusals: Record<RateLimitKind, number> = { user: 0, session: 0, anon: 0, address: 0 };
  const artifactLookups: Record<InstallArtifactOutcome, number> = { hit: 0, miss: 0, refused: 0 };
  let unhandledRejections = 0;
  const startedAt = Date.now() / 1000 - process.uptime();

  function seriesOf(route: string, status: number): RequestSeries {
    let byStatus = requests.get(route);
    let series = byStatus?.get(status);
    if (series) return series;
    if (seriesCount >= MAX_SERIES) {
      route = 'other';
      byStatus = requests.get(route);
      series = byStatus?.get(status);
      if (series) return series;
    }
    if (!byStatus) {
      byStatus = new Map();
      requests.set(route, byStatus);
    }
    series = { route, status: String(status), count: 0, sum: 0, buckets: new Array<number>(DURATION_BUCKETS.length + 1).fill(0) };
    byStatus.set(status, series);
    seriesCount += 1;
    return series;
  }

  return {
    observeRequest(route, status, seconds) {
      const series = seriesOf(route, status);
      series.count += 1;
      series.sum += seconds;
      let i = 0;
      while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i += 1;
      series.buckets[i]! += 1;
    },
    rateLimited(kind) {
      refusals[kind] += 1;
    },
    installArtifactLookup(outcome) {
      artifactLookups[outcome] += 1;
    },
    unhandledRejection() {
      unhandledRejections += 1;
    },
    render({ pool, database, caches }) {
      const out: string[] = [];
      const all = [...requests.values()]
        .flatMap((byStatus) => [...byStatus.values()])
        .sort((a, b) => (a.route === b.route ? a.status.localeCompare(b.status) : a.route.localeCompare(b.route)));
      renderRequests(out, all);
      renderRefusalsAndFailures(out, refusals, artifactLookups, unhandledRejections);
      renderPool(out, pool, database);
      renderCaches(out, caches);
      renderProcess(out, startedAt);
      return `${out.join('\n')}\n`;
    },
  };
}

/** http_requests_total and http_request_duration_seconds, one series per (route, status). */
function renderRequests(out: string[], all: readonly RequestSeries[]): void {
  out.push('# HELP http_requests_total Requests answered, by route template and HTTP status.');
  out.push('# TYPE http_requests_total counter');
  for (const s of all) out.push(`http_requests_total${labels({ route: s.route, status: s.status })} ${s.count}`);

  out.push('# HELP http_request_duration_seconds Time to answer a request (until the response starts), by route template and HTTP status.');
  out.push('# TYPE http_request_duration_seconds histogram');
  for (const s of all) {
    let cumulative = 0;
    DURATION_BUCKETS.forEach((upper, i) => {
      cumulative += s.buckets[i]!;
      out.push(`http_request_duration_seconds_bucket${labels({ route: s.route, status: s.status, le: num(upper) })} ${cumulative}`);
    });
    out.push(`http_request_duration_seconds_bucket${labels({ route: s.route, status: s.status, le: '+Inf' })} ${s.count}`);
    out.push(`http_request_duration_seconds_sum${labels({ route: s.route, status: s.status })} ${num(s.sum)}`);
    out.push(`http_request_duration_seconds_count${labels({ route: s.route, status: s.status })} ${s.count}`);
  }
}

/** The counters of refusals, install artefact lookups and unhandled rejections. */
function renderRefusalsAndFailures(
  out: string[],
  refusals: Record<RateLimitKind, number>,
  artifactLookups: Record<InstallArtifactOutcome, number>,
  unhandledRejections: number,
): void {
  out.push(
    '# HELP rate_limited_requests_total Requests refused with 429 by the rate limiter, by whose budget ran out (user: tokens and API keys, session: the dashboard session cookie, anon: anonymous deployment caller, address: unauthenticated client address).',
  );
  out.push('# TYPE rate_limited_requests_total counter');
  for (const kind of Object.keys(refusals) as RateLimitKind[]) out.push(`rate_limited_requests_total${labels({ kind })} ${refusals[kind]}`);

  out.push(
    "# HELP install_artifact_lookups_total Lookups of a deployment's install artefacts (plugin archive, skills, skills index), by outcome (hit: kept ones served, miss: built, refused: over the archive bound).",
  );
  out.push('# TYPE install_artifact_lookups_total counter');
  for (const outcome of Object.keys(artifactLookups) as InstallArtifactOutcome[])
    out.push(`install_artifact_lookups_total${labels({ outcome })} ${artifactLookups[outcome]}`);
  out.push('# HELP process_unhandled_rejections_total Promise rejections nobody handled, logged and survived (docs/operations.md).');
  out.push('# TYPE process_unhandled_rejections_total counter');
  out.push(`process_unhandled_rejections_total ${unhandledRejections}`);
}

/** The database pool's gauges, labelled with the database kind. */
function renderPool(out: string[], pool: PoolStats, database: string): void {
  const db = { database };
  out.push('# HELP db_pool_connections Database connections open, busy or idle (PGlite: its one in-process connection).');
  out.push('# TYPE db_pool_connections gauge');
  out.push(`db_pool_connections${labels(db)} ${pool.total}`);
  out.push('# HELP db_pool_idle_connections Open database connections not in use.');
  out.push('# TYPE db_pool_idle_connections gauge');
  out.push(`db_pool_idle_connections${labels(db)} ${pool.idle}`);
  out.push('# HELP db_pool_waiting_requests Queries waiting for a database connection.');
  out.push('# TYPE db_pool_waiting_requests gauge');
  out.push(`db_pool_waiting_requests${labels(db)} ${pool.waiting}`);
  out.push('# HELP db_pool_max_connections Largest number of database connections the pool opens.');
  out.push('# TYPE db_pool_max_connections gauge');
  out.push(`db_pool_max_connections${labels(db)} ${pool.max}`);
}

/** Each bounded cache's size, bound and lookups. */
function renderCaches(out: string[], caches: readonly CacheGauge[]): void {
  out.push('# HELP cache_entries Entries a bounded cache of the process holds, by cache (src/cache/bounded.ts).');
  out.push('# TYPE cache_entries gauge');
  for (const c of caches) out.push(`cache_entries${labels({ cache: c.name })} ${c.size}`);
  out.push('# HELP cache_max_entries Entries a bounded cache holds at most; past it the least recently used goes.');
  out.push('# TYPE cache_max_entries gauge');
  for (const c of caches) out.push(`cache_max_entries${labels({ cache: c.name })} ${c.max}`);
  out.push(
    '# HELP cache_lookups_total Lookups of a bounded cache, by cache and outcome (hit: answered from it, miss: absent or no longer usable).',
  );
  out.push('# TYPE cache_lookups_total counter');
  for (const c of caches) {
    out.push(`cache_lookups_total${labels({ cache: c.name, outcome: 'hit' })} ${c.hits}`);
    out.push(`cache_lookups_total${labels({ cache: c.name, outcome: 'miss' })} ${c.misses}`);
  }
}

/** The process's memory, read now, and its start time. */
function renderProcess(out: string[], startedAt: number): void {
  const memory = process.memoryUsage();
  out.push('# HELP process_resident_memory_bytes Resident set size of the process.');
  out.push('# TYPE process_resident_memory_bytes gauge');
  out.push(`process_resident_memory_bytes ${memory.rss}`);
  out.push('# HELP nodejs_heap_used_bytes V8 heap in use.');
  out.push('# TYPE nodejs_heap_used_bytes gauge');
  out.push(`nodejs_heap_used_bytes ${memory.heapUsed}`);
  out.push('# HELP nodejs_heap_total_bytes V8 heap reserved (used and free).');
  out.push('# TYPE nodejs_heap_total_bytes gauge');
  out.push(`nodejs_heap_total_bytes ${memory.heapTotal}`);
  out.push('# HELP nodejs_external_memory_bytes Memory of C++ objects bound to JavaScript objects (buffers included).');
  out.push('# TYPE nodejs_external_memory_bytes gauge');
  out.push(`nodejs_external_memory_bytes ${memory.external}`);
  out.push('# HELP process_start_time_seconds Start time of the process since the Unix epoch.');
  out.push('# TYPE process_start_time_seconds gauge');
  out.push(`process_start_time_seconds ${num(Math.round(startedAt))}`);
}
