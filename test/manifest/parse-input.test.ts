import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import { parseManifestInput, validateManifest } from '../../src/manifest/validate.js';
import { completeManifest } from './fixtures.js';

function yamlError(source: string): AppError {
  try {
    parseManifestInput(source);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected the YAML to be rejected');
}

describe('parseManifestInput', () => {
  it('returns JSON data untouched', () => {
    const m = completeManifest();
    expect(parseManifestInput(m)).toBe(m);
    expect(parseManifestInput(null)).toBeNull();
    expect(parseManifestInput([1])).toEqual([1]);
  });

  it('parses a YAML manifest into data that validates', () => {
    const source = [
      'manifest_version: "1.0"',
      'name: Fix a bug',
      'intent: |',
      '  Fix the failing login test.',
      '  Keep the public API unchanged.',
      'steps:',
      '  - id: build',
      '    name: Build',
      '    action: code_agent',
      '  - id: test',
      '    name: Test',
      '    action: test_agent',
      '    depends_on: [build]',
      '    retry: { max_attempts: 2 }',
    ].join('\n');
    const data = parseManifestInput(source);
    expect(validateManifest(data).valid).toBe(true);
    expect(data).toMatchObject({ intent: 'Fix the failing login test.\nKeep the public API unchanged.\n' });
  });

  it('accepts a JSON string, JSON being YAML', () => {
    expect(parseManifestInput(JSON.stringify(completeManifest()))).toEqual(completeManifest());
  });

  it('leaves an unquoted version a number, for validation to report', () => {
    const data = parseManifestInput('manifest_version: 1.0\n');
    expect(data).toEqual({ manifest_version: 1 });
  });

  it('keeps "__proto__" an ordinary key', () => {
    const data = parseManifestInput('context:\n  __proto__: { polluted: true }\n') as { context: object };
    expect(Object.getPrototypeOf(data.context)).toBe(Object.prototype);
    expect(Object.keys(data.context)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('rejects YAML that does not parse, giving the line', () => {
    const err = yamlError('name: x\nsteps: [a, b\nintent: y\n');
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toMatch(/^the manifest is not valid YAML: .+ at line \d+, column \d+$/);
    const errors = err.details.errors as Array<{ line: number; column: number; message: string }>;
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.line).toBeGreaterThan(1);
    // The position once: as line and column, not repeated in each problem's message.
    for (const e of errors) expect(e.message).not.toMatch(/line \d+/);
    expect(err.message.match(/at line/g)).toHaveLength(1);
  });

  it('rejects duplicate keys', () => {
    expect(yamlError('name: a\nname: b\n').message).toContain('Map keys must be unique at line 2, column 1');
  });

  it('rejects several documents in one string', () => {
    expect(yamlError('name: a\n---\nname: b\n').message).toContain('multiple documents');
  });

  it('rejects an alias bomb', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++) {
      const prev = String.fromCharCode(96 + i);
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(10).fill(`*${prev}`).join(', ')}]`);
    }
    const err = yamlError(lines.join('\n'));
    expect(err.message).toMatch(/alias/i);
  });

  it.each([
    ['an infinity', 'context:\n  limit: .inf\n', 'context.limit is Infinity'],
    ['binary data', 'context:\n  blob: !!binary aGVsbG8=\n', 'context.blob holds a value that is not JSON data'],
    ['a collection key', 'context:\n  ? [a, b]\n  : 1\n', 'context has a key that is not a scalar'],
  ])('rejects %s, which JSON cannot hold', (_label, source, message) => {
    expect(yamlError(source).message).toContain(message);
  });

  it('turns scalar keys into strings, as JSON requires', () => {
    expect(parseManifestInput('context:\n  1: one\n  true: yes\n')).toEqual({ context: { '1': 'one', true: 'yes' } });
  });
});
