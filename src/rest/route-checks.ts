import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  parse,
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { validationError, type FieldProblem } from '../errors.js';
import type { HttpMethod, RouteSpec } from './routes.js';

/**
 * The REST routes of the route table as GraphQL operations. Each route is made once into an
 * operation on its field (`document`), which the GraphQL pipeline runs (src/rest/handler.ts).
 * Inputs are checked strictly against the argument types before execution (no string-to-number
 * or single-value-to-list guessing, and an explicit null reaches the resolver) so every bad input
 * gets a 400 naming the field.
 */

export interface CompiledRoute {
  spec: RouteSpec;
  /** `METHOD /v1/path/:param`: the route in logs and metrics. */
  label: string;
  pattern: RegExp;
  paramNames: string[];
  /** The names of the arguments a body may set: the field's, less the path's. */
  bodyArgs: ReadonlySet<string>;
  document: DocumentNode;
  fieldName: string;
  args: readonly GraphQLArgument[];
  field: GraphQLField<unknown, unknown>;
}

/** The name of every route's operation. */
export const ROUTE_OPERATION = 'Rest';

/** The alias of the revision an `etag` route selects for its ETag header. */
export const ETAG_FIELD = 'etagRevision';

export type RouteMatch =
  | { kind: 'route'; route: CompiledRoute; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: HttpMethod[] }
  | { kind: 'not_found' };

const MAX_SELECTION_DEPTH = 6;

function selectionFor(type: GraphQLOutputType, seen: ReadonlySet<string>, depth: number, omit: ReadonlySet<string>): string {
  const named = getNamedType(type);
  if (isLeafType(named) || !isObjectType(named)) return '';
  const inner: string[] = [];
  for (const field of Object.values(named.getFields())) {
    if (field.extensions?.restExclude || omit.has(`${named.name}.${field.name}`)) continue;
    if (field.args.some((a) => isNonNullType(a.type) && a.defaultValue === undefined)) continue;
    const target = getNamedType(field.type);
    if (isLeafType(target)) {
      inner.push(field.name);
    } else if (isObjectType(target) && !seen.has(target.name) && depth < MAX_SELECTION_DEPTH) {
      const sub = selectionFor(field.type, new Set([...seen, named.name]), depth + 1, omit);
      if (sub) inner.push(`${field.name} ${sub}`);
    }
  }
  return inner.length ? `{ ${inner.join(' ')} }` : '';
}

function compileRoute(schema: GraphQLSchema, spec: RouteSpec): CompiledRoute {
  const [typeName, fieldName] = spec.field.split('.') as [string, string];
  const parent = typeName === 'Query' ? schema.getQueryType() : schema.getMutationType();
  const field = parent?.getFields()[fieldName];
  if (!parent || !field) throw new Error(`route ${spec.method} ${spec.path}: no GraphQL field ${spec.field}`);
  const varDefs = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const callArgs = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const op = typeName === 'Query' ? 'query' : 'mutation';
  let selection = selectionFor(field.type, new Set(), 0, new Set(spec.omit ?? []));
  // The revision behind the ETag header, under a name of its own that the handler takes out of the answer.
  if (spec.etag) selection = `${selection.slice(0, -1)}${ETAG_FIELD}: revision }`;
  const source = `${op} ${ROUTE_OPERATION}${varDefs ? `(${varDefs})` : ''} { ${fieldName}${callArgs ? `(${callArgs})` : ''} ${selection} }`;
  const paramNames: string[] = [];
  const pattern = new RegExp(
    `^${spec.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([A-Za-z]+)/g, (_m, name: string) => {
      paramNames.push(name);
      return '([^/]+)';
    })}/?$`,
  );
  for (const p of paramNames) {
    if (!field.args.some((a) => a.name === p)) throw new Error(`route ${spec.path}: ${spec.field} has no argument ${p}`);
  }
  if (spec.ifMatch && !field.args.some((a) => a.name === spec.ifMatch))
    throw new Error(`route ${spec.path}: ${spec.field} has no argument ${spec.ifMatch}`);
  const bodyArgs = new Set(field.args.map((a) => a.name).filter((name) => !paramNames.includes(name) && name !== spec.ifMatch));
  const label = `${spec.method} /v1${spec.path}`;
  return { spec, label, pattern, paramNames, bodyArgs, document: parse(source), fieldName, args: field.args, field };
}

function describeType(type: GraphQLInputType): string {
  const named = getNamedType(type);
  if (isListType(isNonNullType(type) ? type.ofType : type)) return 'an array';
  if (isEnumType(named))
    return `one of ${named
      .getValues()
      .map((v) => v.name)
      .join(', ')}`;
  switch (named.name) {
    case 'Int':
      return 'an integer';
    case 'Float':
      return 'a number';
    case 'Boolean':
      return 'a boolean (true or false)';
    default:
      return isInputObjectType(named) ? 'an object' : 'a string';
  }
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** What a JSON value of each scalar must be, with no coercion. */
const SCALAR_CHECKS: Record<string, (v: unknown) => boolean> = {
  String: (v) => typeof v === 'string',
  ID: (v) => typeof v === 'string',
  Int: (v) => Number.isInteger(v) && Math.abs(v as number) <= 2_147_483_647,
  Float: (v) => typeof v === 'number' && Number.isFinite(v),
  Boolean: (v) => typeof v === 'boolean',
};

/** Checks a JSON value against a GraphQL input type without any coercion. */
function checkInput(value: unknown, type: GraphQLInputType, path: string, problems: FieldProblem[]): void {
  if (isNonNullType(type)) {
    if (value === null || value === undefined) {
      problems.push({ field: path, message: `${path} is required` });
      return;
    }
    checkInput(value, type.ofType, path, problems);
    return;
  }
  if (value === null || value === undefined) return;
  const fail = () => problems.push({ field: path, message: `${path} must be ${describeType(type)}` });
  if (isListType(type)) {
    if (!Array.isArray(value)) return void fail();
    value.forEach((item, i) => checkInput(item, type.ofType, `${path}[${i}]`, problems));
    return;
  }
  if (isEnumType(type)) {
    if (typeof value !== 'string' || !type.getValue(value)) fail();
    return;
  }
  if (isInputObjectType(type)) {
    if (!isPlainObject(value)) return void fail();
    const fields = type.getFields();
    for (const key of Object.keys(value))
      if (!fields[key]) problems.push({ field: `${path}.${key}`, message: `${path}.${key} is not a known field` });
    for (const f of Object.values(fields)) checkInput(value[f.name], f.type, `${path}.${f.name}`, problems);
    return;
  }
  if (isScalarType(type)) {
    // An unpaired surrogate (a JSON escape such as \ud800) is not Unicode text and cannot be stored.
    if (typeof value === 'string' && !(value as unknown as { isWellFormed(): boolean }).isWellFormed()) {
      problems.push({
        field: path,
        message: `${path} contains an unpaired surrogate (\\uD800 to \\uDFFF), which is not valid Unicode text`,
      });
      return;
    }
    const check = SCALAR_CHECKS[type.name];
    if (check && !check(value)) fail();
  }
}

/** Query-string values are text: turn them into the argument's type where they read as one. */
function fromQueryString(values: string[], type: GraphQLInputType): unknown {
  const base = isNonNullType(type) ? type.ofType : type;
  if (isListType(base)) return values.flatMap((v) => v.split(',')).map((v) => fromQueryString([v], base.ofType));
  const raw = values[values.length - 1]!;
  const named = getNamedType(base);
  if (named.name === 'Int' && /^-?\d{1,10}$/.test(raw)) return Number(raw);
  if (named.name === 'Float' && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw);
  if (named.name === 'Boolean' && (raw === 'true' || raw === 'false')) return raw === 'true';
  return raw;
}

export interface RestRequestInput {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The parsed JSON body (an object) or undefined when the method has none. */
  body: Record<string, unknown> | undefined;
}

export function collectVariables(route: CompiledRoute, input: RestRequestInput): Record<string, unknown> {
  const variables: Record<string, unknown> = {};
  const problems: FieldProblem[] = [];
  if (input.body) {
    for (const key of Object.keys(input.body)) {
      if (!route.bodyArgs.has(key)) problems.push({ field: key, message: `${key} is not a field of this request` });
    }
  }
  for (const arg of route.args) {
    // Set from a header by the handler, never from the body or the query string.
    if (arg.name === route.spec.ifMatch) continue;
    let value: unknown;
    if (route.paramNames.includes(arg.name)) {
      value = input.params[arg.name];
    } else if (input.body && arg.name in input.body) {
      value = input.body[arg.name];
    } else if (input.query.has(arg.name)) {
      value = fromQueryString(input.query.getAll(arg.name), arg.type);
    }
    checkInput(value, arg.type, arg.name, problems);
    if (value !== undefined) variables[arg.name] = value;
  }
  if (problems.length) throw validationError(problems);
  return variables;
}

export function compileRouter(schema: GraphQLSchema, specs: readonly RouteSpec[]) {
  const compiled = specs.map((s) => compileRoute(schema, s));

  function match(method: string, path: string): RouteMatch {
    const allowed: HttpMethod[] = [];
    for (const route of compiled) {
      const m = route.pattern.exec(path);
      if (!m) continue;
      if (route.spec.method !== method) {
        allowed.push(route.spec.method);
        continue;
      }
      const params: Record<string, string> = {};
      try {
        route.paramNames.forEach((name, i) => {
          params[name] = decodeURIComponent(m[i + 1]!);
        });
      } catch {
        // A segment that is not valid percent-encoding (`%E0%A4%A`) names nothing that can exist.
        return { kind: 'not_found' };
      }
      return { kind: 'route', route, params };
    }
    return allowed.length ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
  }

  return { routes: compiled, match };
}

export type RestRouter = ReturnType<typeof compileRouter>;
