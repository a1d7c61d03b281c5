/**
 * The manifest's JSON Schema check as standalone JavaScript (ajv's generated code, no eval at run
 * time), for the dashboard's build: the same schema and options as the service's check.
 */
import { createRequire } from 'node:module';
import { MANIFEST_AJV_OPTIONS } from './check.js';
import { manifestSchema } from './schema.js';

// Loaded as CommonJS, so this module reads the same under Node and under the dashboard's bundler config.
const require = createRequire(import.meta.url);
const Ajv = (require('ajv') as { default: new (options: object) => { compile(schema: object): unknown } }).default;
const standaloneCode = (require('ajv/dist/standalone') as { default: (ajv: unknown, check: unknown) => string }).default;

/** An ES module whose default export is the compiled check (`errors` set after a failed call). */
export function manifestSchemaCheckModule(): string {
  const ajv = new Ajv({ ...MANIFEST_AJV_OPTIONS, code: { source: true, esm: true } });
  let code = standaloneCode(ajv, ajv.compile(manifestSchema));
  // ajv's code still `require`s its few run-time helpers (string length in code points, deep
  // equality): turned into imports a bundler resolves.
  const imports: string[] = [];
  code = code.replace(/require\(("ajv\/dist\/runtime\/[a-z0-9_]+")\)/g, (_m: string, specifier: string) => {
    const name = `runtime${imports.length}`;
    imports.push(`import * as ${name} from ${specifier};`);
    return name;
  });
  return `${imports.join('\n')}\n${code}`;
}
