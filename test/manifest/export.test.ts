import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { AppError } from '../../src/errors.js';
import { exportManifest, parseExportFormat } from '../../src/manifest/export.js';
import type { WorkflowManifest } from '../../src/manifest/types.js';
import { parseManifestInput, validateManifest } from '../../src/manifest/validate.js';
import { completeManifest } from './fixtures.js';

/** Strings a YAML writer is easy to get wrong: other types in 1.2 or 1.1, syntax, whitespace. */
const TRICKY = [
  '1.0',
  '1',
  '-1',
  '0.5',
  '.5',
  '1e3',
  '0x1F',
  '0o17',
  '017',
  '1_000',
  '1:20',
  '+12',
  'yes',
  'no',
  'on',
  'off',
  'y',
  'n',
  'Yes',
  'ON',
  'true',
  'False',
  'null',
  'Null',
  '~',
  '',
  '.inf',
  '-.Inf',
  '.nan',
  '2001-12-14',
  '2001-12-14t21:59:43.10-05:00',
  'a: b',
  '- item',
  '# not a comment',
  '&anchor',
  '*alias',
  '!tag',
  '%directive',
  '@at',
  '`tick',
  '|',
  '>',
  "it's",
  '"quoted"',
  '{a: 1}',
  '[1, 2]',
  ' leading space',
  'trailing space ',
  '\ttab',
  'line one\nline two',
  'ends with newline\n',
  'two trailing newlines\n\n',
  '\nstarts with newline',
  '  indented\n first line',
  'trailing spaces  \non a line',
  'crlf\r\nline',
  'nul\u0000char',
  'bell\u0007',
  'unicode é 漢字 🚀',
  'line\u2028separator',
  'x'.repeat(300),
  `${'word '.repeat(60)}end`,
];

function withTricky(values: string[]): WorkflowManifest {
  const m = completeManifest();
  m.intent = values.join('\n');
  m.steps[0]!.parameters = Object.fromEntries(values.map((v, i) => [`k${i}`, v]));
  m.context = { ...m.context, ...Object.fromEntries(values.map((v) => [v, v])) };
  m.outputs!.expected_files = values;
  return m;
}

describe('exportManifest', () => {
  it('writes JSON with two spaces and a final newline', () => {
    const m = completeManifest();
    const { body, contentType } = exportManifest(m, 'json');
    expect(contentType).toBe('application/json');
    expect(body).toBe(JSON.stringify(m, null, 2) + '\n');
    expect(body.split('\n')[1]).toMatch(/^ {2}"\$schema"/);
  });

  it('writes YAML that reads back as the same data', () => {
    const m = completeManifest();
    const { body, contentType } = exportManifest(m, 'yaml');
    expect(contentType).toBe('application/yaml');
    expect(parse(body)).toEqual(m);
    expect(body).toContain('manifest_version: "1.0"');
    expect(body.endsWith('\n')).toBe(true);
  });

  it('keeps strings that look like numbers, booleans or null as strings, in values and keys', () => {
    const m = withTricky(TRICKY);
    const { body } = exportManifest(m, 'yaml');
    expect(parse(body)).toEqual(JSON.parse(exportManifest(m, 'json').body));
    expect(parseManifestInput(body)).toEqual(m);
  });

  it('quotes strings that YAML 1.1 readers would take for other types', () => {
    const { body } = exportManifest(withTricky(['yes', 'on', 'off', 'y', '1:20', '2001-12-14', '017']), 'yaml');
    for (const v of ['yes', 'on', 'off', 'y', '1:20', '2001-12-14', '017']) {
      expect(body).toContain(`- "${v}"`);
      expect(body).not.toMatch(new RegExp(`^ *- ${v}$`, 'm'));
    }
    const yaml11 = parse(body, { version: '1.1' }) as WorkflowManifest;
    expect(yaml11.outputs!.expected_files).toEqual(['yes', 'on', 'off', 'y', '1:20', '2001-12-14', '017']);
  });

  it('writes multi-line strings as block scalars that keep every newline', () => {
    const m = completeManifest();
    m.intent = 'First line.\nSecond line.\n';
    const { body } = exportManifest(m, 'yaml');
    expect(body).toContain('intent: |\n  First line.\n  Second line.\n');
    expect(parse(body)).toEqual(m);
  });

  it('keeps long lines on one line', () => {
    const m = completeManifest();
    m.intent = 'word '.repeat(40).trim();
    expect(exportManifest(m, 'yaml').body).toContain(`intent: ${m.intent}\n`);
  });

  it('round-trips arbitrary JSON data through YAML', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(fc.dictionary(text, fc.jsonValue({ maxDepth: 3 })), text, (parameters, intent) => {
        const m = completeManifest();
        m.intent = intent;
        m.steps[0]!.parameters = parameters;
        // Compared as JSON text: YAML keeps -0 where JSON writes 0, the same JSON value.
        const expected = JSON.stringify(m);
        expect(JSON.stringify(parseManifestInput(exportManifest(m, 'yaml').body))).toBe(expected);
        expect(JSON.stringify(JSON.parse(exportManifest(m, 'json').body))).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('exports a validated manifest that validates again from either form', () => {
    const m = completeManifest();
    for (const format of ['json', 'yaml'] as const) {
      expect(validateManifest(parseManifestInput(exportManifest(m, format).body)).valid).toBe(true);
    }
  });
});

describe('parseExportFormat', () => {
  it('defaults to json', () => {
    expect(parseExportFormat(undefined)).toBe('json');
  });

  it.each(['json', 'yaml'] as const)('accepts %s', (format) => {
    expect(parseExportFormat(format)).toBe(format);
  });

  it.each(['xml', 'YAML', 'yml', '', 1, ['json'], null])('rejects %j naming the allowed values', (value) => {
    let caught: unknown;
    try {
      parseExportFormat(value);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(AppError);
    expect((caught as AppError).code).toBe('VALIDATION_ERROR');
    expect((caught as AppError).message).toContain("format must be one of 'json', 'yaml'");
    expect((caught as AppError).details).toMatchObject({ allowed: ['json', 'yaml', 'skill'] });
  });
});
