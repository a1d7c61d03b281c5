import { describe, expect, it } from 'vitest';
import { validateManifest } from '../../src/manifest/validate.js';
import { errorsOf, minimalManifest, onlyError } from './fixtures.js';

const step = (id: string, depends_on?: string[]) => ({ id, name: id, action: 'code_agent', ...(depends_on ? { depends_on } : {}) });

describe('validateManifest: semantic checks', () => {
  it('reports a duplicate step id at the later step', () => {
    const m = { ...minimalManifest(), steps: [step('build'), step('test'), step('build')] };
    const e = onlyError(m);
    expect(e).toEqual({
      path: '/steps/2/id',
      code: 'duplicate_step_id',
      message: "steps[2].id 'build' is already the id of steps[0]; step ids must be unique",
    });
  });

  it('reports depends_on naming a missing step, with a suggestion', () => {
    const m = { ...minimalManifest(), steps: [step('build'), step('test', ['build', 'biuld'])] };
    const e = onlyError(m);
    expect(e).toEqual({
      path: '/steps/1/depends_on/1',
      code: 'unknown_dependency',
      message: "steps[1].depends_on[1] (step 'test') names 'biuld', which is not a step of this manifest (did you mean 'build'?)",
    });
  });

  it('never suggests the step itself for a missing dependency', () => {
    const m = { ...minimalManifest(), steps: [step('lint'), step('bb', ['b'])] };
    const e = onlyError(m);
    expect(e.code).toBe('unknown_dependency');
    expect(e.message).toBe("steps[1].depends_on[0] (step 'bb') names 'b', which is not a step of this manifest");
  });

  it('reports a step depending on itself as a circular dependency, once, with its own message', () => {
    const m = { ...minimalManifest(), steps: [step('build', ['build'])] };
    const e = onlyError(m);
    expect(e).toEqual({
      path: '/steps/0/depends_on/0',
      code: 'circular_dependency',
      message: "circular dependency: step 'build' depends on itself (steps[0].depends_on[0])",
    });
  });

  it('reports a two-step cycle naming both steps', () => {
    const m = { ...minimalManifest(), steps: [step('build', ['test']), step('test', ['build'])] };
    const e = onlyError(m);
    expect(e.code).toBe('circular_dependency');
    expect(e.message).toBe('circular dependency: build → test → build (each step depends on the next)');
    expect(e.path).toBe('/steps/1/depends_on/0');
  });

  it('reports a three-step cycle naming all three steps', () => {
    const m = {
      ...minimalManifest(),
      steps: [step('setup'), step('build', ['setup', 'deploy']), step('test', ['build']), step('deploy', ['test'])],
    };
    const e = onlyError(m);
    expect(e.code).toBe('circular_dependency');
    expect(e.message).toBe('circular dependency: build → deploy → test → build (each step depends on the next)');
    expect(e.path).toBe('/steps/2/depends_on/0');
  });

  it('reports each of two separate cycles', () => {
    const m = { ...minimalManifest(), steps: [step('a', ['b']), step('b', ['a']), step('c', ['d']), step('d', ['c'])] };
    const result = validateManifest(m);
    expect(result.errors.map((e) => e.message)).toEqual([
      'circular dependency: a → b → a (each step depends on the next)',
      'circular dependency: c → d → c (each step depends on the next)',
    ]);
  });

  it('reports tools_per_step and functions_per_step keys that are not step ids', () => {
    const m = {
      ...minimalManifest(),
      adapters: {
        adapter_one: { config: { tools_per_step: { build: ['Read'], deploy: ['Bash'] } } },
        adapter_three: { config: { functions_per_step: { tset: ['run'] } } },
      },
    };
    const result = validateManifest(m);
    expect(result.errors).toEqual([
      {
        path: '/adapters/adapter_one/config/tools_per_step/deploy',
        code: 'unknown_step_reference',
        message: "adapters.adapter_one.config.tools_per_step has an entry for 'deploy', which is not a step of this manifest",
      },
      {
        path: '/adapters/adapter_three/config/functions_per_step/tset',
        code: 'unknown_step_reference',
        message:
          "adapters.adapter_three.config.functions_per_step has an entry for 'tset', which is not a step of this manifest (did you mean 'test'?)",
      },
    ]);
  });

  it('does not call references unknown when a step id cannot be read', () => {
    const m = minimalManifest();
    delete m.steps[0]!.id;
    m.adapters = { adapter_one: { config: { tools_per_step: { build: ['Read'] } } } };
    expect(errorsOf(m)).toEqual([['/steps/0/id', 'missing_required_field']]);
  });

  it('survives steps of any shape', () => {
    const m = { ...minimalManifest(), steps: [null, 3, 'x', [], { id: 5, depends_on: 'a' }, { depends_on: [1, null] }] };
    const result = validateManifest(m);
    expect(result.valid).toBe(false);
    expect(result.errors.every((e) => e.path.startsWith('/steps/'))).toBe(true);
  });
});

describe('validateManifest: many errors at once', () => {
  it('reports every problem, ordered by path then code', () => {
    const input = {
      manifest_version: '2.0',
      intent: '',
      extra: true,
      steps: [
        { id: 'Build', name: 'Build', action: 'compile' },
        { id: 'test', action: 'test_agent', depends_on: ['lint', 'test'], retry: { max_attempts: 'x' } },
        { id: 'test', name: 'Again', action: 'test_agent', 'depends-on': [] },
        { id: 'a', name: 'A', action: 'code_agent', depends_on: ['b'] },
        { id: 'b', name: 'B', action: 'code_agent', depends_on: ['a'] },
      ],
      adapters: { adapter_two: { mode: 'fast' }, adapter_one: { config: { tools_per_step: { nope: [] } } } },
    };
    expect(errorsOf(input)).toEqual([
      ['/adapters/adapter_one/config/tools_per_step/nope', 'unknown_step_reference'],
      ['/adapters/adapter_two/mode', 'invalid_value'],
      ['/extra', 'unknown_property'],
      ['/intent', 'missing_required_field'],
      ['/manifest_version', 'unsupported_manifest_version'],
      ['/name', 'missing_required_field'],
      ['/steps/0/action', 'unknown_action'],
      ['/steps/0/id', 'invalid_step_id'],
      ['/steps/1/depends_on/0', 'unknown_dependency'],
      ['/steps/1/depends_on/1', 'circular_dependency'],
      ['/steps/1/name', 'missing_required_field'],
      ['/steps/1/retry/max_attempts', 'invalid_type'],
      ['/steps/2/depends-on', 'unknown_property'],
      ['/steps/2/id', 'duplicate_step_id'],
      ['/steps/4/depends_on/0', 'circular_dependency'],
    ]);
  });

  it('orders step indices numerically', () => {
    const steps = Array.from({ length: 12 }, (_, i) => ({ id: `s${i}`, name: 'S', action: 'nope' }));
    const paths = validateManifest({ ...minimalManifest(), steps }).errors.map((e) => e.path);
    expect(paths).toEqual(steps.map((_, i) => `/steps/${i}/action`));
  });

  it('returns the same answer every time', () => {
    const input = { steps: [{ id: 'X' }, { id: 'X' }], extra: 1 };
    expect(validateManifest(input)).toEqual(validateManifest(structuredClone(input)));
  });
});
