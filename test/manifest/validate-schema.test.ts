import { describe, expect, it } from 'vitest';
import { validateManifest } from '../../src/manifest/validate.js';
import { completeManifest, errorsOf, minimalManifest, onlyError } from './fixtures.js';

describe('validateManifest: valid input', () => {
  it('accepts a manifest that uses every feature and returns it', () => {
    const input = completeManifest();
    const result = validateManifest(input);
    expect(result).toEqual({ valid: true, manifest: input, errors: [] });
  });

  it('accepts a minimal manifest', () => {
    expect(validateManifest(minimalManifest()).valid).toBe(true);
  });

  it('accepts any keys inside context, parameters and outputs.schema', () => {
    const m = minimalManifest();
    m.context = { anything: { nested: [1, 2] } };
    m.steps[0]!.parameters = { 'any-key': true, nested: { deep: null } };
    m.outputs = { schema: { 'x-custom': 1, $defs: {} } };
    expect(validateManifest(m).errors).toEqual([]);
  });
});

describe('validateManifest: not an object', () => {
  it.each([
    ['an array', [], 'an array'],
    ['a string', 'manifest', 'the string "manifest"'],
    ['null', null, 'null'],
    ['a number', 42, 'the number 42'],
  ])('rejects %s with one invalid_type error at the root', (_label, input, got) => {
    const e = onlyError(input);
    expect(e).toEqual({ path: '', code: 'invalid_type', message: `a manifest must be a JSON object, got ${got}` });
  });
});

describe('validateManifest: required fields', () => {
  it.each(['name', 'intent', 'steps', 'manifest_version'])('reports a missing %s', (field) => {
    const m = minimalManifest();
    delete m[field];
    const e = onlyError(m);
    expect(e.path).toBe(`/${field}`);
    expect(e.code).toBe('missing_required_field');
    expect(e.message).toBe(`the manifest is missing the required field '${field}'`);
  });

  it('reports empty steps as a missing step', () => {
    const e = onlyError({ ...minimalManifest(), steps: [] });
    expect(e).toEqual({ path: '/steps', code: 'missing_required_field', message: 'a manifest needs at least one step' });
  });

  it('treats an empty name or intent as missing', () => {
    expect(errorsOf({ ...minimalManifest(), name: '', intent: '' })).toEqual([
      ['/intent', 'missing_required_field'],
      ['/name', 'missing_required_field'],
    ]);
  });

  it('names the step index and id when a step lacks a field', () => {
    const m = minimalManifest();
    delete m.steps[1]!.name;
    const e = onlyError(m);
    expect(e.path).toBe('/steps/1/name');
    expect(e.code).toBe('missing_required_field');
    expect(e.message).toBe("steps[1] (step 'test') is missing the required field 'name'");
  });

  it('names only the index when the step lacks its id', () => {
    const m = minimalManifest();
    delete m.steps[0]!.id;
    const e = onlyError(m);
    expect(e).toMatchObject({ path: '/steps/0/id', code: 'missing_required_field' });
    expect(e.message).toBe("steps[0] is missing the required field 'id'");
  });
});

describe('validateManifest: manifest_version', () => {
  it('rejects "2.0" as unsupported', () => {
    const e = onlyError({ ...minimalManifest(), manifest_version: '2.0' });
    expect(e.path).toBe('/manifest_version');
    expect(e.code).toBe('unsupported_manifest_version');
    expect(e.message).toContain("'2.0'");
  });

  it('rejects 1.0 written as a number as a wrong type, once', () => {
    const e = onlyError({ ...minimalManifest(), manifest_version: 1.0 });
    expect(e.path).toBe('/manifest_version');
    expect(e.code).toBe('invalid_type');
    expect(e.message).toBe('manifest_version must be a string, got the number 1; write it in quotes: "1.0"');
  });
});

describe('validateManifest: step ids and actions', () => {
  it.each(['Build-Step', '1abc', '_x', 'a b'])('rejects the step id %j', (id) => {
    const m = minimalManifest();
    m.steps[0]!.id = id;
    m.steps[1]!.depends_on = [id];
    const e = onlyError(m);
    expect(e.path).toBe('/steps/0/id');
    expect(e.code).toBe('invalid_step_id');
    expect(e.message).toBe(
      `steps[0].id '${id}' is not a valid step id: use only lowercase letters, digits and underscores, starting with a lowercase letter`,
    );
  });

  it('rejects an unknown action, naming it and suggesting the closest', () => {
    const m = minimalManifest();
    m.steps[1]!.action = 'test_agnet';
    const e = onlyError(m);
    expect(e.path).toBe('/steps/1/action');
    expect(e.code).toBe('unknown_action');
    expect(e.message).toBe("steps[1].action (step 'test'): 'test_agnet' is not a known action (did you mean 'test_agent'?)");
  });

  it('lists the allowed actions when nothing is close', () => {
    const m = minimalManifest();
    m.steps[0]!.action = 'deploy_to_production_now';
    const e = onlyError(m);
    expect(e.code).toBe('unknown_action');
    expect(e.message).toContain("allowed actions: 'code_agent', 'research_agent'");
  });

  it('reports an action of the wrong type once, as a type error', () => {
    const m = minimalManifest();
    m.steps[0]!.action = 7;
    expect(errorsOf(m)).toEqual([['/steps/0/action', 'invalid_type']]);
  });
});

describe('validateManifest: adapter modes', () => {
  it.each([
    ['adapter_one', 'composer', "'sub_agent', 'direct'"],
    ['adapter_two', 'sub_agent', "'composer', 'direct', 'parallel'"],
    ['adapter_three', 'parallel', "'function_calling', 'direct'"],
  ])('rejects a mode of %s outside its list', (adapter, mode, allowed) => {
    const e = onlyError({ ...minimalManifest(), adapters: { [adapter]: { mode } } });
    expect(e.path).toBe(`/adapters/${adapter}/mode`);
    expect(e.code).toBe('invalid_value');
    expect(e.message).toBe(`adapters.${adapter}.mode: '${mode}' is not allowed; allowed values: ${allowed}`);
  });

  it('rejects an outputs.type outside its list with a suggestion', () => {
    const e = onlyError({ ...minimalManifest(), outputs: { type: 'docs' } });
    expect(e).toMatchObject({ path: '/outputs/type', code: 'invalid_value' });
  });
});

describe('validateManifest: wrong types', () => {
  it('steps as an object', () => {
    const e = onlyError({ ...minimalManifest(), steps: { build: { name: 'Build' } } });
    expect(e).toEqual({ path: '/steps', code: 'invalid_type', message: 'steps must be an array, got an object' });
  });

  it('depends_on as a string', () => {
    const m = minimalManifest();
    m.steps[1]!.depends_on = 'build';
    const e = onlyError(m);
    expect(e.path).toBe('/steps/1/depends_on');
    expect(e.code).toBe('invalid_type');
    expect(e.message).toBe(`steps[1].depends_on (step 'test') must be an array of strings, got the string "build"`);
  });

  it('retry.max_attempts as a string', () => {
    const m = minimalManifest();
    m.steps[0]!.retry = { max_attempts: '3' };
    const e = onlyError(m);
    expect(e).toMatchObject({ path: '/steps/0/retry/max_attempts', code: 'invalid_type' });
    expect(e.message).toBe(`steps[0].retry.max_attempts (step 'build') must be an integer, got the string "3"`);
  });

  it('retry.max_attempts below 1 or fractional', () => {
    const m = minimalManifest();
    m.steps[0]!.retry = { max_attempts: 0 };
    m.steps[1]!.retry = { max_attempts: 1.5 };
    expect(errorsOf(m)).toEqual([
      ['/steps/0/retry/max_attempts', 'invalid_value'],
      ['/steps/1/retry/max_attempts', 'invalid_type'],
    ]);
  });

  it('context.repo as a number', () => {
    const e = onlyError({ ...minimalManifest(), context: { repo: 42 } });
    expect(e).toEqual({ path: '/context/repo', code: 'invalid_type', message: 'context.repo must be a string, got the number 42' });
  });

  it('a tools_per_step value that is not a string array', () => {
    const tools = { build: 'Read', test: ['Bash', 3] };
    const m = { ...minimalManifest(), adapters: { adapter_one: { config: { tools_per_step: tools } } } };
    expect(errorsOf(m)).toEqual([
      ['/adapters/adapter_one/config/tools_per_step/build', 'invalid_type'],
      ['/adapters/adapter_one/config/tools_per_step/test/1', 'invalid_type'],
    ]);
    expect(validateManifest(m).errors[0]!.message).toBe(
      'adapters.adapter_one.config.tools_per_step.build must be an array of strings, got the string "Read"',
    );
  });

  it('max_parallel_agents that is not a positive integer', () => {
    const m = { ...minimalManifest(), adapters: { adapter_one: { config: { max_parallel_agents: 0 } } } };
    expect(errorsOf(m)).toEqual([['/adapters/adapter_one/config/max_parallel_agents', 'invalid_value']]);
  });
});

describe('validateManifest: unknown properties', () => {
  it('at the root, with a suggestion', () => {
    const e = onlyError({ ...minimalManifest(), nmae: 'x' });
    expect(e).toEqual({
      path: '/nmae',
      code: 'unknown_property',
      message: "the manifest has an unknown property 'nmae' (did you mean 'name'?)",
    });
  });

  it('in a step, catching depends-on for depends_on', () => {
    const m = minimalManifest();
    m.steps[1]!['depends-on'] = ['build'];
    const e = onlyError(m);
    expect(e).toEqual({
      path: '/steps/1/depends-on',
      code: 'unknown_property',
      message: "steps[1] (step 'test') has an unknown property 'depends-on' (did you mean 'depends_on'?)",
    });
  });

  it('lists the allowed properties when nothing is close, and escapes the pointer', () => {
    const e = onlyError({ ...minimalManifest(), outputs: { 'a/b~c': 1 } });
    expect(e.path).toBe('/outputs/a~1b~0c');
    expect(e.message).toBe("outputs has an unknown property 'a/b~c'; allowed properties: 'type', 'expected_files', 'schema'");
  });

  it('in adapters and their config', () => {
    const m = { ...minimalManifest(), adapters: { adapter_nine: {}, adapter_two: { config: { autoapply: true } } } };
    expect(errorsOf(m)).toEqual([
      ['/adapters/adapter_nine', 'unknown_property'],
      ['/adapters/adapter_two/config/autoapply', 'unknown_property'],
    ]);
  });
});
