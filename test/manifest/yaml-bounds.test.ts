import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { parseManifestInput } from '../../src/manifest/validate.js';
import { YAML_LIMITS } from '../../src/manifest/yaml-text.js';
import { serviceTest } from '../helpers/service-test.js';

/** A mapping of `n` distinct keys, one a line. */
function manyKeys(n: number): string {
  let text = 'context:\n';
  for (let i = 0; i < n; i += 1) text += `  key_${i}: value\n`;
  return text;
}

function readingTime(text: string): number {
  const start = performance.now();
  parseManifestInput(text);
  return performance.now() - start;
}

function refusal(source: string): AppError {
  try {
    parseManifestInput(source);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the YAML to be refused');
}

describe('reading YAML is linear and bounded', () => {
  it('takes about four times as long for four times the keys, not sixteen times', () => {
    // Past the limits the service applies, so that linear and quadratic reading are far apart
    // (4 against 16) and a busy machine cannot blur them; the limits are restored after.
    const limits = YAML_LIMITS as { maxNodes: number; maxBytes: number };
    const saved = { ...limits };
    limits.maxNodes = 100_000;
    limits.maxBytes = 4 * 1024 * 1024;
    try {
      const n = 4_000;
      const small = manyKeys(n);
      const large = manyKeys(4 * n);
      readingTime(small);
      readingTime(large);
      const smallTimes: number[] = [];
      const largeTimes: number[] = [];
      // Interleaved, so that a busy moment of the machine weighs on both sizes alike; the fastest run
      // of each size is the one least disturbed (a busy machine only ever adds time).
      for (let i = 0; i < 7; i += 1) {
        smallTimes.push(readingTime(small));
        largeTimes.push(readingTime(large));
      }
      // Reading in linear time gives about 4; comparing each key with every earlier one gives 16.
      expect(Math.min(...largeTimes) / Math.min(...smallTimes)).toBeLessThan(8);
    } finally {
      Object.assign(limits, saved);
    }
  }, 120_000);

  it('still refuses duplicate keys, giving the later one with its position', () => {
    const err = refusal('name: a\ncontext:\n  x: 1\n  y: 2\n  x: 3\nname: b\n');
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toBe('the manifest is not valid YAML: Map keys must be unique at line 5, column 3');
    expect(err.details.errors).toEqual([
      // The position once: as the problem's line and column, not in its message too.
      { path: '', message: 'Map keys must be unique', line: 5, column: 3 },
      { path: '', message: 'Map keys must be unique', line: 6, column: 1 },
    ]);
  });

  it('refuses keys that JSON would merge into one (1 and "1")', () => {
    expect(refusal('context:\n  1: one\n  "1": two\n').message).toContain('Map keys must be unique at line 3, column 3');
  });

  it('refuses duplicate keys in flow mappings and under aliases alike', () => {
    expect(refusal('context: { a: 1, b: 2, a: 3 }\n').message).toContain('Map keys must be unique at line 1, column 24');
    expect(refusal('k: &k name\ncontext:\n  name: 1\n  *k : 2\n').message).toContain('Map keys must be unique at line 4, column 3');
  });

  it.each([
    ['flow sequences', (d: number) => `context: ${'['.repeat(d)}${']'.repeat(d)}\n`],
    ['flow mappings', (d: number) => `context: ${'{a: '.repeat(d)}1${'}'.repeat(d)}\n`],
    ['indented block sequences', (d: number) => Array.from({ length: d }, (_, i) => `${' '.repeat(i)}-`).join('\n') + ' x\n'],
    ['compact block sequences', (d: number) => `${'- '.repeat(d)}x\n`],
    ['indented block mappings', (d: number) => Array.from({ length: d }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' x\n'],
  ])('refuses %s nested past the limit, and reads them at the limit', (_label, nested) => {
    // The root mapping (or sequence) is the first level.
    const err = refusal(nested(YAML_LIMITS.maxDepth + 1));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toMatch(/^the manifest nests more than 100 levels deep at line \d+, column \d+$/);
    expect(() => parseManifestInput(nested(YAML_LIMITS.maxDepth - 1))).not.toThrow();
  });

  it('refuses text over 256 KiB before reading it', () => {
    const text = `name: x\nintent: "${'é'.repeat(YAML_LIMITS.maxBytes / 2)}"\n`;
    const err = refusal(text);
    expect(err.message).toBe(`the manifest is ${Buffer.byteLength(text)} bytes of text; at most 262144 are read`);
    expect(refusal('x'.repeat(YAML_LIMITS.maxBytes + 1)).message).toBe(
      `the manifest is ${YAML_LIMITS.maxBytes + 1} bytes of text; at most 262144 are read`,
    );
    // A long text under the limit is read: the limit is on bytes, not on what they say.
    expect(parseManifestInput(`intent: "${'x'.repeat(YAML_LIMITS.maxBytes - 20)}"\n`)).toMatchObject({ intent: expect.any(String) });
  });

  it('refuses more nodes than the limit, counting keys, values and items', () => {
    const err = refusal(`context: [${Array.from({ length: YAML_LIMITS.maxNodes }, () => '1').join(',')}]\n`);
    expect(err.message).toBe('the manifest has more than 5000 keys, values and items; at most 5000 are read');
    expect(err.details.errors).toEqual([expect.objectContaining({ line: 1 })]);
    expect(() =>
      parseManifestInput(`context: [${Array.from({ length: YAML_LIMITS.maxNodes - 10 }, () => '1').join(',')}]\n`),
    ).not.toThrow();
  });

  it('keeps refusing alias bombs, cycles and unsafe tags', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++) {
      const prev = String.fromCharCode(96 + i);
      lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    expect(refusal(lines.join('\n')).message).toMatch(/alias/i);
    expect(refusal('context: &a { self: *a }\n').message).toMatch(/alias|contains it/);
    expect(refusal('context:\n  f: !!binary aGVsbG8=\n').message).toContain('not JSON data');
  });
});

/** A user on the free plan. */
const yamlTest = serviceTest.extend<{ token: string }>({
  token: [async ({ service }, use) => use(await service.token('yaml@example.com', { plan: 'free' })), { scope: 'file' }],
});

describe('YAML limits through the service', () => {
  yamlTest('answers 400 VALIDATION_ERROR to YAML nested 120,000 or 400,000 levels deep', async ({ service: t, token }) => {
    const deep = (d: number) => `context: ${'['.repeat(d)}${']'.repeat(d)}\n`;
    const res = await t.call('POST', '/v1/manifests/validate', { token, body: { manifest: deep(120_000) } });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.message).toBe('the manifest nests more than 100 levels deep at line 1, column 109');
    // 800 kB, under the body limit: refused by its size before it is read.
    const deeper = await t.call('POST', '/v1/manifests/validate', { token, body: { manifest: deep(400_000) } });
    expect(deeper.status).toBe(400);
    expect(deeper.body.error.message).toBe('the manifest is 800010 bytes of text; at most 262144 are read');
  });

  yamlTest('answers 400 to YAML over 256 KiB, and gives the position of a duplicate key', async ({ service: t, token }) => {
    const big = await t.call('POST', '/v1/manifests/validate', { token, body: { manifest: manyKeys(30_000) } });
    expect(big.status).toBe(400);
    expect(big.body.error.message).toMatch(/^the manifest is \d+ bytes of text; at most 262144 are read$/);
    const dup = await t.call('POST', '/v1/workflows', {
      token,
      body: {
        name: 'dup',
        manifest: 'manifest_version: "1.0"\nname: a\nintent: b\nname: c\nsteps: [{id: a, name: a, action: code_agent}]\n',
      },
    });
    expect(dup.status).toBe(400);
    expect(dup.body.error.message).toContain('Map keys must be unique at line 4, column 1');
  });

  yamlTest('refuses GraphQL aliases of validateManifest by cost, before validating any', async ({ service: t, token }) => {
    const manifest = 'manifest_version: "1.0"\nname: a\nintent: b\nsteps: [{id: a, name: a, action: code_agent}]\n';
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `v${i}: validateManifest(manifest: $m) { valid }`).join(' ');
    for (const n of [30, 2]) {
      const many = await t.graphql(`mutation ($m: JSON!) { ${fields(n)} }`, { m: manifest }, token);
      expect(many.status).toBe(400);
      expect(many.body.errors[0].extensions.details).toEqual({ limit: 'cost' });
      expect(many.body.data).toBeUndefined();
    }
    const mixed = await t.graphql(
      `mutation ($m: JSON!) { v: validateManifest(manifest: $m) { valid } c: createWorkflow(name: "x", manifest: $m) { workflowId } }`,
      { m: manifest },
      token,
    );
    expect(mixed.status).toBe(400);
    const one = await t.graphql(`mutation ($m: JSON!) { ${fields(1)} }`, { m: manifest }, token);
    expect(one.status).toBe(200);
    expect(one.body.data).toEqual({ v0: { valid: true } });
  });
});
