import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import fc from 'fast-check';
import { getNamedType, isEnumType, isInputObjectType, isListType, isNonNullType, type GraphQLInputType } from 'graphql';
import { afterAll, describe, expect } from 'vitest';
import { errorTable } from '../../src/errors.js';
import { getSchema } from '../../src/graphql/schema.js';
import { createNodeServer } from '../../src/http/node.js';
import { parseManifestInput, validateManifest } from '../../src/manifest/validate.js';
import { MCP_PATH } from '../../src/mcp/endpoint.js';
import { compileRouter, type CompiledRoute } from '../../src/rest/route-checks.js';
import { routes } from '../../src/rest/routes.js';
import type { TestApp } from '../helpers/app.js';
import { serviceTest } from '../helpers/service-test.js';
import { createWorkflow, sampleManifest } from '../helpers/workflows.js';

/**
 * Property-based fuzzing of every input the service reads: the body, path and query of every
 * REST route, the manifest validator, the tool endpoint, and raw request lines and headers sent
 * over a socket to the HTTP server. Whatever arrives, the service must answer without a 500, in
 * its documented shape, and a refused request must change no row.
 *
 * Sizing: FUZZ_RUNS sets the runs of every property (default: a few thousand inputs in total,
 * about 20–30 s); each property also stops after its time budget (FUZZ_SECONDS per property when
 * set). `npm run fuzz` runs this file with FUZZ_RUNS=20000. FUZZ_SEED replays a reported seed.
 */

const LONG = Boolean(process.env.FUZZ_RUNS);
const runsOf = (base: number) => (LONG ? Number(process.env.FUZZ_RUNS) : base);
const secondsOf = (base: number) => (process.env.FUZZ_SECONDS ? Number(process.env.FUZZ_SECONDS) : LONG ? 600 : base);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

function settings(baseRuns: number, baseSeconds: number) {
  return { numRuns: runsOf(baseRuns), seed: SEED, plugins: [fc.interruptAfterTimeLimit(secondsOf(baseSeconds) * 1000)] };
}
/** Runs done per property, reported at the end (the time budget may stop a property early). */
const runsDone: Record<string, number> = {};

/** fc.assert, keeping count of the runs. */
async function check<T>(name: string, property: fc.IAsyncProperty<T> | fc.IProperty<T>, params: fc.Parameters<T>): Promise<void> {
  const details = await fc.check(property as fc.IAsyncProperty<T>, params);
  runsDone[name] = (runsDone[name] ?? 0) + details.numRuns;
  if (details.failed) throw new Error(fc.defaultReportMessage(details), { cause: details.errorInstance });
}

/** The vitest timeout of a property: its budget plus room for a shrink and the set-up. */
const timeoutOf = (baseSeconds: number) => secondsOf(baseSeconds) * 1000 + 60_000;

const ERROR_CODES = new Set(Object.keys(errorTable));

// ---------------------------------------------------------------------------------------------
// Values

/** Strings that have broken parsers, routers and databases before. */
const NASTY = [
  '',
  ' ',
  '.',
  '..',
  '%',
  '%00',
  '%2F',
  '%2e%2e',
  '%E0%A4%A',
  '%ZZ',
  '%C0%AF',
  '\u0000',
  '\uFEFF',
  '\uD800',
  '😀',
  '👨‍👩‍👧‍👦',
  'a/b',
  '?x=1',
  '#f',
  'null',
  'undefined',
  'NaN',
  '__proto__',
  'constructor',
  'prototype',
  "' OR 1=1 --",
  '"; DROP TABLE users; --',
  '${jndi:ldap://x}',
  '<script>alert(1)</script>',
  '{{7*7}}',
  'wf_00000000000000000000',
  '\\',
  '\u202Eevil',
  'a'.repeat(300),
  'é'.repeat(2000),
  '1e309',
  '-0',
  '0x10',
  '9007199254740993',
  '\r\n\r\nX-Injected: 1',
];

/** encodeURIComponent refuses lone surrogates; a client would send them as U+FFFD. */
const encode = (s: string) =>
  encodeURIComponent(s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));

const weirdString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY) },
  { weight: 1, arbitrary: fc.constantFrom(5_000, 70_000).map((n) => 'x'.repeat(n)) },
);

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: weirdString },
  {
    weight: 1,
    arbitrary: fc.constantFrom(0, -1, 1.5, 2 ** 31, -(2 ** 53), Number.MAX_VALUE, true, false, null, [], {}, [null], { '': '' }),
  },
);

/** A nested value `depth` levels deep: arrays, objects, or both. */
function deep(depth: number, kind: 'array' | 'object' | 'mixed'): string {
  let open = '';
  let close = '';
  for (let i = 0; i < depth; i += 1) {
    const asArray = kind === 'array' || (kind === 'mixed' && i % 2 === 0);
    open += asArray ? '[' : '{"a":';
    close = (asArray ? ']' : '}') + close;
  }
  return `${open}1${close}`;
}
const deepJson = fc
  .tuple(
    fc.constantFrom(64, 1_000, 20_000, 200_000),
    fc.constantFrom('array', 'object', 'mixed') as fc.Arbitrary<'array' | 'object' | 'mixed'>,
  )
  .map(([d, k]) => deep(d, k));

/** A JSON path inside a manifest, and what to do there. */
const manifestMutation = fc.record({
  path: fc.array(
    fc.oneof(
      fc.constantFrom(
        'steps',
        'context',
        'adapters',
        'outputs',
        'depends_on',
        'id',
        'name',
        'action',
        'retry',
        'max_attempts',
        'backoff',
        'timeout_seconds',
        'parameters',
        'adapter_one',
        'adapter_two',
        'adapter_three',
        'config',
        'mode',
        'manifest_version',
        'intent',
        '$schema',
        '__proto__',
        'type',
      ),
      fc.nat({ max: 5 }),
    ),
    { minLength: 1, maxLength: 4 },
  ),
  op: fc.constantFrom('set', 'delete', 'push') as fc.Arbitrary<'set' | 'delete' | 'push'>,
  value: anyJson,
});

function mutate(
  base: Record<string, any>,
  mutations: { path: (string | number)[]; op: 'set' | 'delete' | 'push'; value: unknown }[],
): Record<string, any> {
  const root = structuredClone(base);
  for (const { path, op, value: generated } of mutations) {
    // A copy: generated values can be shared (constantFrom hands out the same object every time),
    // and a later mutation walking into an inserted value must not change it for other runs.
    const value = structuredClone(generated);
    let node: any = root;
    let i = 0;
    for (; i < path.length - 1; i += 1) {
      // Own properties only: node['__proto__'] would walk into Object.prototype and pollute it.
      const next = Object.hasOwn(node, path[i]!) ? node[path[i]!] : undefined;
      if (next === null || typeof next !== 'object') break;
      node = next;
    }
    const key = path[i]!;
    // defineProperty so "__proto__" becomes an own key, as JSON.parse makes it.
    if (op === 'delete' && Array.isArray(node) && typeof key === 'number') node.splice(key, 1);
    else if (op === 'delete') delete node[key];
    else if (op === 'push' && Object.hasOwn(node, key) && Array.isArray(node[key])) node[key].push(value);
    // No holes: a sparse array is not JSON data.
    else if (Array.isArray(node) && typeof key === 'number' && key >= node.length) node.push(value);
    else Object.defineProperty(node, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return root;
}

const mutatedManifest = fc.array(manifestMutation, { minLength: 1, maxLength: 4 }).map((ms) => mutate(sampleManifest(), ms));

/** A manifest as a YAML string: anchors and aliases, tags, odd scalars. */
const yamlManifest = fc.oneof(
  fc.constantFrom(
    'manifest_version: "1.0"\nname: y\nintent: z\nsteps: [{id: a, name: A, action: planning_agent}]',
    'a: &a [*a]',
    'x: &x [1]\ny: [*x, *x, *x]',
    'k: !!binary aGVsbG8=',
    'k: .inf',
    '? [a, b]\n: c',
    'a: 1\na: 2',
    '- - - - - 1',
    '"unterminated',
    '%YAML 1.2\n---\nfoo: bar',
    '{"manifest_version": "1.0"}',
  ),
  fc.constantFrom(64, 500, 3_000).map((n) => `${'['.repeat(n)}1${']'.repeat(n)}`),
  fc
    .constantFrom(10, 200)
    .map((n) => `a: &a0 [x]\n${Array.from({ length: n }, (_, i) => `a${i + 1}: &a${i + 1} [*a${i}, *a${i}]`).join('\n')}`),
  weirdString,
);

const manifestValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 1, arbitrary: fc.constant(null).map(() => sampleManifest()) },
  { weight: 4, arbitrary: mutatedManifest },
  { weight: 2, arbitrary: yamlManifest },
  { weight: 2, arbitrary: anyJson },
);

// ---------------------------------------------------------------------------------------------
// The world the fuzzer aims at

interface World {
  owner: string;
  other: string;
  /** A user no other property aims at: the unknown-paths property may delete it. */
  bystander: string;
  /** Ids the fuzzer may name; some get deleted along the way, which is fine. */
  workflowIds: string[];
  deploymentIds: string[];
  reviewIds: string[];
  anonymousDeploymentId: string;
  privateDeploymentId: string;
  sessionId: string;
}

/** The service and the world the fuzzer aims at: the fixture below sets them, the arbitraries and helpers read them. */
let t: TestApp;
let world: World;

/** Row counts, counter sums and last-change times of every table a request can write. */
async function snapshot(): Promise<string> {
  const rows = await t.database.db.prisma.$queryRawUnsafe<Record<string, unknown>[]>(`SELECT
    (SELECT count(*) FROM users)::int AS users, (SELECT max(updated_at)::text FROM users) AS users_at,
    (SELECT count(*) FROM workflows)::int AS workflows, (SELECT max(updated_at)::text FROM workflows) AS workflows_at,
    (SELECT coalesce(sum(forks_count + subscribers_count + rating_sum + rating_count), 0)::int FROM workflows) AS workflow_counters,
    (SELECT count(*) FROM workflow_versions)::int AS versions,
    (SELECT count(*) FROM library_entries)::int AS library, (SELECT max(updated_at)::text FROM library_entries) AS library_at,
    (SELECT count(*) FROM reviews)::int AS reviews, (SELECT max(updated_at)::text FROM reviews) AS reviews_at,
    (SELECT count(*) FROM deployments)::int AS deployments, (SELECT max(updated_at)::text FROM deployments) AS deployments_at,
    (SELECT max(last_connected_at)::text FROM deployments) AS connected_at,
    (SELECT count(*) FROM deployment_workflows)::int AS bundles,
    (SELECT coalesce(sum(count), 0)::int FROM deployment_usage) AS usage,
    (SELECT coalesce(sum(count), 0)::int FROM usage_counters) AS counters,
    (SELECT count(*) FROM billing_subscriptions)::int AS subscriptions, (SELECT max(updated_at)::text FROM billing_subscriptions) AS subscriptions_at,
    (SELECT count(*) FROM billing_records)::int AS billing_records`);
  return JSON.stringify(rows[0]);
}

function pick<T>(list: T[], n: number, fallback: T): T {
  return list.length ? list[n % list.length]! : fallback;
}

/** Nothing a request sends may reach Object.prototype. */
function expectNoPollution(): void {
  const probe: Record<string, unknown> = {};
  expect(probe.polluted).toBeUndefined();
  expect(Object.keys(Object.prototype)).toEqual([]);
}

// ---------------------------------------------------------------------------------------------
// REST inputs

type Caller = 'owner' | 'other' | 'none' | 'garbage';
const callerArb = fc.oneof(
  { weight: 5, arbitrary: fc.constant<Caller>('owner') },
  { weight: 1, arbitrary: fc.constantFrom<Caller>('other', 'none', 'garbage') },
);

function authorization(caller: Caller): Record<string, string> {
  if (caller === 'owner') return { authorization: `Bearer ${world.owner}` };
  if (caller === 'other') return { authorization: `Bearer ${world.other}` };
  if (caller === 'garbage') return { authorization: 'Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.' };
  return {};
}

/** A value for a GraphQL argument: mostly of its type (so the request gets past the type checks), sometimes anything. */
function argValue(type: GraphQLInputType, name: string): fc.Arbitrary<unknown> {
  const base = isNonNullType(type) ? type.ofType : type;
  if (isListType(base)) return fc.array(argValue(base.ofType, name), { maxLength: 4 });
  const named = getNamedType(base);
  if (isEnumType(named)) return fc.oneof(fc.constantFrom(...named.getValues().map((v) => v.name)), weirdString);
  if (isInputObjectType(named)) return fc.dictionary(fc.constantFrom(...Object.keys(named.getFields())), anyJson, { maxKeys: 4 });
  if (name === 'manifest') return manifestValue;
  if (name === 'workflowIds')
    return fc.array(
      fc.nat().map((n) => pick(world.workflowIds, n, 'wf_x')),
      { maxLength: 3 },
    );
  switch (named.name) {
    case 'Int':
      return fc.oneof(fc.integer({ min: -5, max: 250 }), fc.integer(), fc.double());
    case 'Float':
      return fc.double();
    case 'Boolean':
      return fc.boolean();
    case 'JSON':
    case 'JSONObject':
      return anyJson;
    default:
      if (name === 'workflowId') return fc.nat().map((n) => pick(world.workflowIds, n, 'wf_x'));
      if (name === 'deploymentId') return fc.nat().map((n) => pick(world.deploymentIds, n, 'dep_x'));
      if (name === 'reviewId') return fc.nat().map((n) => pick(world.reviewIds, n, 'rev_x'));
      if (name === 'version') return fc.constantFrom('1.0.0', '1.0.1', '9.9.9');
      if (/url/i.test(name)) return fc.oneof(fc.webUrl(), weirdString, fc.constantFrom('javascript:alert(1)', 'ftp://x', '/relative'));
      return weirdString;
  }
}

interface RestCase {
  /** `METHOD /path` of the route table (the compiled route is looked up, so counterexamples stay short). */
  route: string;
  caller: Caller;
  params: string[];
  query: string;
  body: { text: string; contentType: string | null } | null;
}

let compiled: CompiledRoute[];
const routeKey = (r: CompiledRoute) => `${r.spec.method} ${r.spec.path}`;
const routeOf = (key: string) => compiled.find((r) => routeKey(r) === key)!;

function restCaseArb(): fc.Arbitrary<RestCase> {
  return fc.constantFrom(...compiled).chain((route) => {
    const paramArb = fc.array(
      fc.oneof(
        { weight: 3, arbitrary: fc.nat().map((n) => ({ kind: 'live' as const, n })) },
        { weight: 2, arbitrary: weirdString.map((s) => ({ kind: 'encoded' as const, s })) },
        { weight: 1, arbitrary: fc.constantFrom(...NASTY).map((s) => ({ kind: 'raw' as const, s })) },
      ),
      { minLength: route.paramNames.length, maxLength: route.paramNames.length },
    );
    const argNames = route.args.map((a) => a.name);
    const queryArb = fc.oneof(
      { weight: 2, arbitrary: fc.constant('') },
      {
        weight: 3,
        arbitrary: fc
          .array(
            fc.tuple(
              fc.oneof(fc.constantFrom(...argNames, 'limit', 'cursor', 'format'), weirdString),
              fc.oneof(weirdString, fc.integer().map(String), fc.constantFrom('true', 'false', '0', '-1', '100000', 'json', 'yaml', 'a,b')),
            ),
            { maxLength: 4 },
          )
          .map((pairs) => `?${new URLSearchParams(pairs).toString()}`),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '?limit=%ZZ',
          '?cursor=%E0%A4%A',
          '?limit=1&limit=2',
          '?q=%00',
          '?format',
          '?=&&=',
          `?q=${'x'.repeat(5000)}`,
        ),
      },
    );
    const hasBody = ['POST', 'PUT', 'PATCH'].includes(route.spec.method);
    const fields = fc.record(
      Object.fromEntries(route.args.filter((a) => !route.paramNames.includes(a.name)).map((a) => [a.name, argValue(a.type, a.name)])),
      { requiredKeys: [] },
    );
    const bodyArb = fc.oneof(
      { weight: 6, arbitrary: fields.map((o) => JSON.stringify(o)) },
      {
        weight: 1,
        arbitrary: fc
          .tuple(fields, fc.dictionary(weirdString, anyJson, { maxKeys: 3 }))
          .map(([o, extra]) => JSON.stringify({ ...extra, ...o })),
      },
      { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v) ?? 'null') },
      {
        weight: 1,
        arbitrary: fields.map((o) => {
          const text = JSON.stringify(o);
          const inner = text === '{}' ? '' : `,${text.slice(1, -1)}`;
          return `{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}${inner}}`;
        }),
      },
      { weight: 1, arbitrary: deepJson.map((d) => `{"${argNames.find((n) => !route.paramNames.includes(n)) ?? 'x'}":${d}}`) },
      { weight: 1, arbitrary: deepJson },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '',
          '{',
          '{"a":',
          'null',
          '[]',
          '"x"',
          '1',
          '{"a":1}{"b":2}',
          '\uFEFF{}',
          '{"name":"\\ud800"}',
          `{"name":"${'x'.repeat(1_100_000)}"}`,
        ),
      },
      { weight: 1, arbitrary: weirdString },
    );
    const contentType = fc.oneof(
      { weight: 8, arbitrary: fc.constant<string | null>('application/json') },
      {
        weight: 1,
        arbitrary: fc.constantFrom<string | null>(
          null,
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/json; charset=latin1',
          'application/vnd.api+json',
        ),
      },
    );
    return fc.record({
      route: fc.constant(routeKey(route)),
      caller: route.spec.method === 'DELETE' && route.spec.path === '/users/me' ? fc.constantFrom<Caller>('none', 'garbage') : callerArb,
      params: paramArb.map((ps) => ps.map((p) => (p.kind === 'live' ? liveParam(route, p.n) : p.kind === 'encoded' ? encode(p.s) : p.s))),
      query: queryArb,
      body: hasBody ? fc.option(fc.record({ text: bodyArb, contentType }), { freq: 12 }) : fc.constant(null),
    });
  });
}

function liveParam(route: CompiledRoute, n: number): string {
  // Params are filled in order; the name decides which kind of id.
  const name = route.paramNames[n % route.paramNames.length]!;
  if (name === 'deploymentId') return pick(world.deploymentIds, n, 'dep_x');
  if (name === 'reviewId') return pick(world.reviewIds, n, 'rev_x');
  if (name === 'version') return '1.0.0';
  return pick(world.workflowIds, n, 'wf_x');
}

function pathOf(c: RestCase): string {
  let i = 0;
  return `/v1${routeOf(c.route).spec.path.replace(/:([A-Za-z]+)/g, () => c.params[i++] ?? 'x')}${c.query}`;
}

interface Answer {
  status: number;
  text: string;
  contentType: string;
}

async function send(method: string, path: string, headers: Record<string, string>, body: string | null): Promise<Answer | null> {
  let request: Request;
  try {
    request = new Request(`http://127.0.0.1${path}`, { method, headers, body: body ?? undefined });
  } catch {
    // Not a request an HTTP client could send (the URL or a header does not parse).
    return null;
  }
  const response = await t.app.fetch(request);
  return { status: response.status, text: await response.text(), contentType: response.headers.get('content-type') ?? '' };
}

/** The envelope of spec 2.1, and a status that agrees with the error code. */
function expectEnvelope(answer: Answer, what: string): void {
  let body: any;
  expect(() => (body = JSON.parse(answer.text)), `${what}: not JSON: ${answer.text.slice(0, 200)}`).not.toThrow();
  expect(typeof body?.success, `${what}: ${answer.text.slice(0, 300)}`).toBe('boolean');
  if (body.success) {
    expect(answer.status, what).toBeLessThan(300);
    expect('data' in body, what).toBe(true);
    return;
  }
  const { error } = body;
  expect(ERROR_CODES.has(error?.code), `${what}: unknown code in ${answer.text.slice(0, 300)}`).toBe(true);
  expect(typeof error.message === 'string' && error.message.length > 0, what).toBe(true);
  expect(
    typeof error.details === 'object' && error.details !== null && !Array.isArray(error.details),
    `${what}: details ${JSON.stringify(error.details)?.slice(0, 100)}`,
  ).toBe(true);
  expect(answer.status, `${what}: ${answer.text.slice(0, 300)}`).toBe(errorTable[error.code as keyof typeof errorTable].status);
}

function expectNot5xx(answer: Answer, what: string): void {
  const billing = answer.status === 501 && answer.text.includes('BILLING_NOT_CONFIGURED');
  expect(answer.status < 500 || billing, `${what} answered ${answer.status}: ${answer.text.slice(0, 500)}`).toBe(true);
}

// ---------------------------------------------------------------------------------------------
// The tool endpoint

const MCP_METHODS = [
  'initialize',
  'notifications/initialized',
  'ping',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'notifications/cancelled',
  'logging/setLevel',
  'completion/complete',
];

const mcpParams = fc.oneof(
  fc.record(
    {
      protocolVersion: fc.oneof(fc.constantFrom('2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'), weirdString),
      capabilities: fc.oneof(fc.constant({}), anyJson),
      clientInfo: fc.record(
        { name: fc.oneof(fc.constantFrom('claude-code', 'Cursor', 'x'), weirdString), version: weirdString },
        { requiredKeys: [] },
      ),
    },
    { requiredKeys: [] },
  ),
  fc.record(
    {
      name: weirdString,
      arguments: fc.oneof(
        fc.record({ task: weirdString, context: fc.dictionary(weirdString, anyJson, { maxKeys: 3 }) }, { requiredKeys: [] }),
        anyJson,
      ),
    },
    { requiredKeys: [] },
  ),
  fc.record({
    uri: fc.oneof(
      weirdString,
      fc.nat().map((n) => `workflow://${pick(world.workflowIds, n, 'wf_x')}/manifest`),
    ),
  }),
  fc.record({ cursor: weirdString }),
  anyJson,
);

const mcpMessage = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record(
        {
          jsonrpc: fc.oneof({ weight: 8, arbitrary: fc.constant<unknown>('2.0') }, { weight: 1, arbitrary: anyJson }),
          id: fc.oneof(fc.nat(), fc.string({ maxLength: 20 }), fc.constant(null), anyJson),
          method: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...MCP_METHODS) }, { weight: 1, arbitrary: weirdString }),
          params: mcpParams,
          result: anyJson,
          error: anyJson,
        },
        { requiredKeys: ['jsonrpc'] },
      )
      .map((m) => JSON.stringify(m)),
  },
  { weight: 1, arbitrary: anyJson.map((v) => JSON.stringify(v) ?? 'null') },
  {
    weight: 1,
    arbitrary: fc.array(fc.constant({ jsonrpc: '2.0', id: 1, method: 'ping' }), { maxLength: 3 }).map((a) => JSON.stringify(a)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      '{',
      'not json',
      '{"jsonrpc":"2.0","id":1,"method":"ping","__proto__":{"polluted":"yes"}}',
      `{"jsonrpc":"2.0","id":1,"method":"${'x'.repeat(100_000)}"}`,
    ),
  },
  {
    weight: 1,
    arbitrary: deepJson.map((d) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"task":${d}}}}`),
  },
);

// ---------------------------------------------------------------------------------------------

/**
 * The service and the world the fuzzer aims at, set into the module's `t` and `world`. Automatic:
 * set up before the file's first test, whichever runs.
 */
const test = serviceTest.extend<{ target: World }>({
  target: [
    async ({ service }, use) => {
      t = service;
      compiled = compileRouter(getSchema(), routes).routes;
      const r = randomBytes(4).toString('hex');
      const owner = await t.token(`fuzz-owner-${r}@example.com`);
      const other = await t.token(`fuzz-other-${r}@example.com`);
      const third = await t.token(`fuzz-third-${r}@example.com`);
      const workflowIds: string[] = [];
      for (let i = 0; i < 4; i += 1)
        workflowIds.push((await createWorkflow(t, owner, { name: `Fuzz ${i}`, visibility: i % 2 ? 'public' : 'private' })).workflowId);
      const thirds = await createWorkflow(t, third, { name: 'Third', visibility: 'public' });
      workflowIds.push(thirds.workflowId);
      expect((await t.call('POST', `/v1/library/${thirds.workflowId}`, { token: owner, body: {} })).status).toBe(201);
      const review = await t.call('POST', `/v1/workflows/${thirds.workflowId}/reviews`, {
        token: owner,
        body: { rating: 4, text: 'A review to aim at.' },
      });
      const dep = (allowAnonymous: boolean) =>
        t.call('POST', '/v1/deployments', { token: owner, body: { name: 'Fuzz', workflowIds: workflowIds.slice(0, 2), allowAnonymous } });
      const anonymous = (await dep(true)).body.data.deploymentId as string;
      const privateDep = (await dep(false)).body.data.deploymentId as string;
      const init = await t.call('POST', `/v1/mcp/${anonymous}`, {
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
        },
      });
      expect(init.status).toBe(200);
      world = {
        owner,
        other,
        bystander: await t.token(`fuzz-bystander-${r}@example.com`),
        workflowIds,
        deploymentIds: [anonymous, privateDep],
        reviewIds: [review.body.data.reviewId],
        anonymousDeploymentId: anonymous,
        privateDeploymentId: privateDep,
        sessionId: init.headers.get('mcp-session-id')!,
      };
      await use(world);
    },
    { scope: 'file', auto: true },
  ],
});

describe('fuzzing', () => {
  afterAll(() => {
    const total = Object.values(runsDone).reduce((a, b) => a + b, 0);
    console.info(
      `fuzz: ${total} generated inputs (${Object.entries(runsDone)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')})`,
    );
  });

  test(
    'REST: every route answers any body, path and query without a 500, in the envelope, changing nothing when it refuses',
    async () => {
      await check(
        'rest',
        fc.asyncProperty(restCaseArb(), async (c) => {
          const route = routeOf(c.route);
          const method = route.spec.method;
          const path = pathOf(c);
          const headers = { ...authorization(c.caller), ...(c.body?.contentType ? { 'content-type': c.body.contentType } : {}) };
          const mutating = method !== 'GET';
          const before = mutating ? await snapshot() : '';
          const answer = await send(method, path, headers, c.body?.text ?? null);
          if (!answer) return;
          const what = `${method} ${path.slice(0, 200)} (${c.caller}) body ${c.body?.text.slice(0, 200) ?? 'none'}`;
          expectNot5xx(answer, what);
          if (route.spec.document && answer.status === 200) {
            expect(answer.contentType).toMatch(/^(application\/(json|yaml)|text\/csv)/);
          } else {
            expectEnvelope(answer, what);
          }
          if (mutating && answer.status >= 400)
            expect(await snapshot(), `${what} changed rows although refused (${answer.status})`).toBe(before);
          // Created resources become targets for later runs.
          if (answer.status === 201) {
            const data = JSON.parse(answer.text).data ?? {};
            if (data.deploymentId) world.deploymentIds.push(data.deploymentId);
            else if (data.reviewId) world.reviewIds.push(data.reviewId);
            else if (data.workflowId && !world.workflowIds.includes(data.workflowId)) world.workflowIds.push(data.workflowId);
          }
          expectNoPollution();
        }),
        settings(1500, 10),
      );
    },
    timeoutOf(10),
  );

  test(
    'REST: unknown paths and methods answer 404/405 in the envelope',
    async () => {
      const segment = fc.oneof(
        fc.constantFrom('workflows', 'deployments', 'library', 'marketplace', 'users', 'me', 'mcp', 'billing'),
        weirdString.map(encode),
      );
      await check(
        'unknown paths',
        fc.asyncProperty(
          fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'),
          fc.array(segment, { minLength: 1, maxLength: 5 }),
          callerArb,
          async (method, segments, caller) => {
            // Generated paths can be real routes (DELETE /v1/users/me deletes the caller's account), so a
            // signed-in caller here is a bystander of its own: the users the other properties aim at stay.
            const headers =
              caller === 'owner' || caller === 'other' ? { authorization: `Bearer ${world.bystander}` } : authorization(caller);
            const answer = await send(method, `/v1/${segments.join('/')}`, headers, null);
            if (!answer) return;
            const what = `${method} /v1/${segments.join('/').slice(0, 200)}`;
            expectNot5xx(answer, what);
            // The tool endpoint answers in JSON-RPC; `..` segments can lead there too (/v1/workflows/../mcp/x).
            if (new URL(`http://127.0.0.1/v1/${segments.join('/')}`).pathname.startsWith('/v1/mcp/')) return;
            // A path that happens to be a route (GET /v1/workflows) answers as that route.
            if (!answer.contentType.startsWith('application/json')) return;
            expectEnvelope(answer, what);
          },
        ),
        settings(300, 3),
      );
    },
    timeoutOf(3),
  );

  test(
    'the manifest validator judges any JSON value without throwing, in its documented shape',
    async () => {
      const judge = (input: unknown) => {
        const copy = JSON.stringify(input);
        const result = validateManifest(input);
        expect(JSON.stringify(input), 'the validator changed its input').toBe(copy);
        expect(typeof result.valid).toBe('boolean');
        expect(Array.isArray(result.errors)).toBe(true);
        if (result.valid) {
          expect(result.errors).toEqual([]);
        } else {
          expect(result.errors.length).toBeGreaterThan(0);
          for (const e of result.errors) {
            expect(typeof e.path === 'string' && (e.path === '' || e.path.startsWith('/')), JSON.stringify(e)).toBe(true);
            expect(typeof e.code === 'string' && e.code.length > 0).toBe(true);
            expect(typeof e.message === 'string' && e.message.length > 0).toBe(true);
          }
        }
        // The same input, the same verdict.
        expect(JSON.stringify(validateManifest(JSON.parse(copy ?? 'null')))).toBe(JSON.stringify(result));
      };
      await check('validator (any JSON)', fc.property(anyJson, judge), settings(3000, 4));
      await check('validator (mutated manifests)', fc.property(mutatedManifest, judge), settings(2000, 4));
    },
    timeoutOf(8),
  );

  test(
    'manifest input parsing (JSON or YAML) refuses with a 400 AppError, never anything else',
    async () => {
      await check(
        'manifest input',
        fc.property(yamlManifest, (text) => {
          try {
            const parsed = parseManifestInput(text);
            validateManifest(parsed);
          } catch (error) {
            expect((error as { code?: string }).code, String(error).slice(0, 300)).toBe('VALIDATION_ERROR');
          }
        }),
        settings(500, 3),
      );
    },
    timeoutOf(3),
  );

  test(
    'the tool endpoint answers any message with JSON-RPC 2.0 (or 202 and no body), never a 500, changing nothing when it refuses',
    async () => {
      // Request lines within Node's header limit (16 KiB): a longer one is refused by Node's parser before the service.
      const target = fc.oneof(
        { weight: 4, arbitrary: fc.constant(() => world.anonymousDeploymentId) },
        { weight: 2, arbitrary: fc.constant(() => world.privateDeploymentId) },
        { weight: 1, arbitrary: weirdString.filter((s) => s !== '').map((s) => () => encode(s)) },
      );
      const extraHeaders = fc.record(
        {
          'mcp-protocol-version': fc.oneof(fc.constantFrom('2025-11-25', '2025-06-18', '2025-03-26', '1999-01-01'), weirdString),
          'mcp-session-id': fc.oneof(fc.constant('SESSION'), fc.constant('mcp1.e30.AAAA'), weirdString),
          'content-type': fc.constantFrom('text/plain', 'application/json-rpc', ''),
        },
        { requiredKeys: [] },
      );
      await check(
        'tool endpoint',
        fc.asyncProperty(
          target,
          fc.oneof(
            { weight: 2, arbitrary: fc.constantFrom<Caller>('owner', 'none') },
            { weight: 1, arbitrary: fc.constantFrom<Caller>('other', 'garbage') },
          ),
          fc.oneof({ weight: 12, arbitrary: fc.constant('POST') }, { weight: 1, arbitrary: fc.constantFrom('GET', 'DELETE', 'PUT') }),
          mcpMessage,
          extraHeaders,
          fc.option(fc.oneof(fc.constantFrom('adapter_one', 'adapter_two', 'adapter_three'), weirdString), { freq: 4 }),
          async (deployment, caller, method, message, extra, adapter) => {
            const headers: Record<string, string> = {
              'content-type': 'application/json',
              accept: 'application/json, text/event-stream',
              ...authorization(caller),
            };
            for (const [k, v] of Object.entries(extra)) headers[k] = k === 'mcp-session-id' && v === 'SESSION' ? world.sessionId : v;
            const path = `/v1/mcp/${deployment()}${adapter === null ? '' : `?adapter=${encode(adapter)}`}`;
            const before = await snapshot();
            const answer = await send(method, path, headers, method === 'GET' ? null : message);
            if (!answer) return;
            const what = `${method} ${path.slice(0, 120)} ${JSON.stringify(extra).slice(0, 200)} ${message.slice(0, 300)}`;
            expectNot5xx(answer, what);
            // `.` and `..` are resolved away by URL parsing: the request never reached the endpoint.
            if (!MCP_PATH.test(new URL(`http://127.0.0.1${path}`).pathname)) return expectEnvelope(answer, what);
            if (answer.status === 202) {
              expect(answer.text, what).toBe('');
              return;
            }
            let body: any;
            expect(() => (body = JSON.parse(answer.text)), `${what}: not JSON: ${answer.text.slice(0, 200)}`).not.toThrow();
            expect(body?.jsonrpc, `${what}: ${answer.text.slice(0, 300)}`).toBe('2.0');
            expect('id' in body, what).toBe(true);
            expect('result' in body !== 'error' in body, `${what}: ${answer.text.slice(0, 300)}`).toBe(true);
            if ('error' in body) {
              expect(Number.isInteger(body.error.code), what).toBe(true);
              expect(typeof body.error.message, what).toBe('string');
              expect(await snapshot(), `${what} changed rows although refused`).toBe(before);
            } else {
              expect(answer.status, what).toBe(200);
              // A result answers the request it was for.
              const sent = JSON.parse(message) as { id?: unknown };
              expect(body.id, what).toEqual(sent.id);
            }
            if (answer.status >= 400) expect('error' in body, what).toBe(true);
            expectNoPollution();
          },
        ),
        settings(800, 6),
      );
    },
    timeoutOf(6),
  );
  test(
    'the HTTP server answers any request line, Host and headers over a socket, never with a 500 or a dropped connection',
    async () => {
      const server: Server = createNodeServer((request, connection) => t.app.handle(request, connection));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const port = (server.address() as AddressInfo).port;
      // Header text a client can put on the wire: no CR, LF or NUL (those are a parse error Node answers itself).
      const headerText = weirdString.map((v) => v.replace(/[\r\n\0]/g, '').slice(0, 300));
      // Request lines within Node's header limit (16 KiB): a longer one is refused by Node's parser before the service.
      const target = fc
        .oneof(
          fc
            .array(
              fc.oneof(
                fc.constantFrom('v1', 'workflows', 'mcp', 'graphql', 'users', 'me', 'healthz', 'metrics', '..', '.', ''),
                weirdString.map(encode),
              ),
              { maxLength: 5 },
            )
            .map((segments) => `/${segments.join('/')}`),
          fc
            .tuple(fc.constantFrom('/v1/workflows', '/v1/marketplace/search', '/graphql', '/v1/mcp/x'), weirdString.map(encode))
            .map(([p, q]) => `${p}?q=${q}`),
          fc.constantFrom('*', 'http://127.0.0.1/healthz', '//double', '/%', '/v1/%E0%A4%A'),
        )
        .map((p) => p.slice(0, 4000));
      const header = fc.tuple(
        fc.constantFrom(
          'authorization',
          'content-type',
          'accept',
          'origin',
          'x-request-id',
          'mcp-session-id',
          'mcp-protocol-version',
          'x-forwarded-for',
          'access-control-request-method',
        ),
        headerText,
      );
      try {
        await check(
          'http server',
          fc.asyncProperty(
            fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'PROPFIND', 'GET'),
            target,
            fc.oneof(fc.constant(`127.0.0.1:${port}`), headerText),
            fc.array(header, { maxLength: 5 }),
            callerArb,
            async (method, path, host, headers, caller) => {
              const lines = [
                `${method} ${path} HTTP/1.1`,
                `Host: ${host}`,
                'Connection: close',
                ...Object.entries(authorization(caller)).map(([k, v]) => `${k}: ${v}`),
                ...headers.map(([k, v]) => `${k}: ${v}`),
              ];
              const raw = await new Promise<string>((resolve, reject) => {
                const socket = connect(port, '127.0.0.1', () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
                let text = '';
                const timer = setTimeout(() => {
                  socket.destroy();
                  reject(new Error(`no answer within 5 s to ${lines[0]}`));
                }, 5000);
                socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
                socket.on('end', () => {
                  clearTimeout(timer);
                  resolve(text);
                });
                socket.on('error', (error) => {
                  clearTimeout(timer);
                  reject(error);
                });
              });
              const what = `${lines.join(' | ').slice(0, 300)}`;
              const status = /^HTTP\/1\.1 (\d{3}) /.exec(raw)?.[1];
              expect(status, `${what}: not an HTTP answer: ${raw.slice(0, 200)}`).toBeDefined();
              expect(Number(status), `${what}: ${raw.slice(0, 500)}`).toBeLessThan(500);
            },
          ),
          settings(300, 5),
        );
      } finally {
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
    timeoutOf(5),
  );
});
