/**
 * Reads a V8 .cpuprofile (what `node --cpu-prof` writes) and says where the time went: the
 * functions with the most self time, self time by package (a node_modules package, Node's own
 * code, a directory of the service, or V8's pseudo-frames such as the garbage collector), and
 * the service's own functions by inclusive time (the request paths the lead can change).
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

interface FunctionTime {
  name: string;
  location: string;
  package: string;
  ms: number;
  percent: number;
}

export interface ProfileSummary {
  totalMs: number;
  samples: number;
  /** Share of the samples in which the process was idle (waiting for I/O). */
  idlePercent: number;
  topSelf: FunctionTime[];
  byPackage: { package: string; ms: number; percent: number }[];
  /** The packages grouped into the layers an optimisation would target (AREAS). */
  byArea: { area: string; ms: number; percent: number }[];
  /** The service's own functions (dist/src or src) by the time spent in them and what they call. */
  topServiceInclusive: FunctionTime[];
  /** Self time of socket writes (writev and friends) by what was written: SQL to PostgreSQL or HTTP answers. */
  socketWrites: { sqlMs: number; httpMs: number; otherMs: number };
}

const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString']);

/** Which package a frame belongs to, from its script URL. */
function packageOf(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  if (url.startsWith('node:')) return 'node (core)';
  const inModules = url.lastIndexOf('/node_modules/');
  if (inModules >= 0) {
    const rest = url.slice(inModules + '/node_modules/'.length).split('/');
    return rest[0]!.startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0]!;
  }
  const inService = /\/(?:dist\/)?src\/([^/]+)/.exec(url);
  if (inService) return `service src/${inService[1]}`;
  return 'other';
}

function locationOf(frame: CallFrame): string {
  if (!frame.url) return '';
  const short = frame.url
    .replace(/^file:\/\//, '')
    .replace(/^.*\/node_modules\//, '')
    .replace(/^.*\/(dist\/src\/|src\/)/, '$1');
  return `${short}:${frame.lineNumber + 1}`;
}

/** Layers of the stack, by package name; the first matching rule wins. */
const AREAS: [string, RegExp][] = [
  ['Prisma (client runtime, query compiler, adapter)', /^(@prisma\/|\.prisma|prisma\b)/],
  ['GraphQL (graphql-js, Pothos, Yoga, Envelop)', /^(graphql|@pothos\/|graphql-yoga|@graphql-|@envelop\/|dataloader)/],
  ['HTTP server (src/http/node.ts, @whatwg-node in GraphQL Yoga)', /^(@whatwg-node\/|service src\/http)/],
  ['MCP SDK (with zod)', /^(@modelcontextprotocol\/|zod)/],
  ['JSON Schema validation (ajv)', /^(ajv|fast-uri|json-schema-traverse|fast-deep-equal)/],
  ['pg driver', /^pg(-|$)/],
  ['auth (jose)', /^jose/],
  ['rate limiting', /^rate-limiter-flexible/],
  ['logging (pino)', /^pino/],
  ['the service (src/)', /^service /],
  ['Node.js core', /^node \(core\)/],
  ['native (syscalls, codecs)', /^\(native\)/],
  ['garbage collector', /^\(garbage collector\)/],
  ['V8 (program, root)', /^\((program|root)\)/],
];

function areaOf(pkg: string): string {
  return AREAS.find(([, rule]) => rule.test(pkg))?.[0] ?? 'other';
}

const keyOf = (frame: CallFrame) => `${frame.functionName}\u0000${frame.url}\u0000${frame.lineNumber}\u0000${frame.columnNumber}`;
const isService = (frame: CallFrame) => /\/(dist\/)?src\//.test(frame.url) && !frame.url.includes('/node_modules/');

export function summarise(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);

  const selfUs = new Map<number, number>();
  let totalUs = 0;
  profile.samples.forEach((id, i) => {
    // timeDeltas[i] is the time before sample i; attributing it to sample i is what DevTools does.
    const delta = Math.max(0, profile.timeDeltas[i] ?? 0);
    selfUs.set(id, (selfUs.get(id) ?? 0) + delta);
    totalUs += delta;
  });

  // WebAssembly frames name no package: they belong to whichever package's JavaScript called them
  // (Prisma's query compiler, for instance), so they are charged to it, marked as wasm.
  const packageOfNode = (id: number): string => {
    const frame = byId.get(id)!.callFrame;
    if (!frame.url.startsWith('wasm://')) return packageOf(frame);
    for (let at = parent.get(id); at !== undefined; at = parent.get(at)) {
      const caller = byId.get(at)!.callFrame;
      if (caller.url && !caller.url.startsWith('wasm://')) return `${packageOf(caller)} (wasm)`;
    }
    return 'wasm';
  };

  const selfByFunction = new Map<string, { frame: CallFrame; pkg: string; us: number }>();
  const byPackage = new Map<string, number>();
  let idleUs = 0;
  for (const [id, us] of selfUs) {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') idleUs += us;
    const pkg = packageOfNode(id);
    const key = `${keyOf(frame)}\u0000${pkg}`;
    const entry = selfByFunction.get(key) ?? { frame, pkg, us: 0 };
    entry.us += us;
    selfByFunction.set(key, entry);
    byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + us);
  }

  const writes = { sql: 0, http: 0, other: 0 };
  for (const [id, us] of selfUs) {
    if (!SOCKET_WRITES.has(byId.get(id)!.callFrame.functionName) || byId.get(id)!.callFrame.url) continue;
    let kind: keyof typeof writes = 'other';
    for (let at = parent.get(id); at !== undefined; at = parent.get(at)) {
      const url = byId.get(at)!.callFrame.url;
      if (/\/node_modules\/pg(-protocol)?\//.test(url)) {
        kind = 'sql';
        break;
      }
      if (url === 'node:_http_outgoing' || url === 'node:_http_server') {
        kind = 'http';
        break;
      }
    }
    writes[kind] += us;
  }

  // Inclusive time of the service's functions: each sample counts once per distinct function on its stack.
  const inclusive = new Map<string, { frame: CallFrame; pkg: string; us: number }>();
  for (const [id, us] of selfUs) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (!isService(frame)) continue;
      const key = keyOf(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = inclusive.get(key) ?? { frame, pkg: packageOf(frame), us: 0 };
      entry.us += us;
      inclusive.set(key, entry);
    }
  }

  // Percentages are of the busy time: idle time says nothing about where the CPU went.
  const busyUs = Math.max(1, totalUs - idleUs);
  const toTime = ({ frame, pkg, us }: { frame: CallFrame; pkg: string; us: number }): FunctionTime => ({
    name: frame.functionName || '(anonymous)',
    location: locationOf(frame),
    package: pkg,
    ms: Math.round(us / 100) / 10,
    percent: Math.round((us / busyUs) * 1000) / 10,
  });
  return {
    totalMs: Math.round(totalUs / 1000),
    samples: profile.samples.length,
    idlePercent: Math.round((idleUs / Math.max(1, totalUs)) * 1000) / 10,
    topSelf: [...selfByFunction.values()]
      .filter((e) => e.frame.functionName !== '(idle)')
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map(toTime),
    byPackage: [...byPackage]
      .filter(([pkg]) => pkg !== '(idle)')
      .sort((a, b) => b[1] - a[1])
      .map(([pkg, us]) => ({ package: pkg, ms: Math.round(us / 1000), percent: Math.round((us / busyUs) * 1000) / 10 })),
    byArea: [
      ...[...byPackage]
        .filter(([pkg]) => pkg !== '(idle)')
        .reduce((areas, [pkg, us]) => areas.set(areaOf(pkg), (areas.get(areaOf(pkg)) ?? 0) + us), new Map<string, number>()),
    ]
      .sort((a, b) => b[1] - a[1])
      .map(([area, us]) => ({ area, ms: Math.round(us / 1000), percent: Math.round((us / busyUs) * 1000) / 10 })),
    topServiceInclusive: [...inclusive.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map(toTime),
    socketWrites: {
      sqlMs: Math.round(writes.sql / 1000),
      httpMs: Math.round(writes.http / 1000),
      otherMs: Math.round(writes.other / 1000),
    },
  };
}

export function readProfile(path: string): CpuProfile {
  return JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
}

export function formatSummary(title: string, s: ProfileSummary, rows = 20): string {
  const pad = (v: string, n: number) => (v.length >= n ? v.slice(0, n) : v + ' '.repeat(n - v.length));
  const lines = [
    `${title}: ${s.totalMs} ms profiled, ${s.samples} samples, idle ${s.idlePercent}% (percentages below are of the busy time)`,
    '',
    '  top self time',
  ];
  for (const f of s.topSelf.slice(0, rows))
    lines.push(`  ${pad(`${f.percent}%`, 7)}${pad(`${f.ms} ms`, 11)}${pad(f.name, 36)} ${pad(f.package, 26)} ${f.location}`);
  lines.push(
    '',
    `  socket writes (native writev and friends): ${s.socketWrites.sqlMs} ms sending SQL to PostgreSQL, ${s.socketWrites.httpMs} ms sending HTTP answers, ${s.socketWrites.otherMs} ms other`,
  );
  lines.push('', '  self time by area');
  for (const a of s.byArea) lines.push(`  ${pad(`${a.percent}%`, 7)}${pad(`${a.ms} ms`, 11)}${a.area}`);
  lines.push('', '  self time by package');
  for (const p of s.byPackage.slice(0, rows)) lines.push(`  ${pad(`${p.percent}%`, 7)}${pad(`${p.ms} ms`, 11)}${p.package}`);
  lines.push('', "  the service's own functions, inclusive time");
  for (const f of s.topServiceInclusive.slice(0, Math.min(rows, 15)))
    lines.push(`  ${pad(`${f.percent}%`, 7)}${pad(`${f.ms} ms`, 11)}${pad(f.name, 36)} ${f.location}`);
  return lines.join('\n');
}
