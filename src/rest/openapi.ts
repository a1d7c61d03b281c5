import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLSchema,
} from 'graphql';
import { errorTable } from '../errors.js';
import type { CompiledRoute, RestRouter } from './route-checks.js';
import { createsResource } from './preconditions.js';

/**
 * The OpenAPI 3.1 document of the REST face, derived from the route table and the GraphQL
 * argument and result types, so it cannot drift from what the routes accept and answer.
 */
type Schema = Record<string, unknown>;

const SCALARS: Record<string, Schema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  JSON: {},
};

/** The headers of optimistic concurrency and idempotent creates (docs/concurrency.md). */
const ETAG: Schema = {
  description: "The resource's revision as a strong entity tag; send it back as If-Match to make a PUT conditional.",
  schema: { type: 'string' },
};
const IF_MATCH: Schema = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'The ETag you read: when the resource has been written since, nothing changes and the answer is 412 PRECONDITION_FAILED. Left out, or *: no check.',
  schema: { type: 'string' },
};
const IDEMPOTENCY_KEY: Schema = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'A key of your choice (a random UUID): a repeat of this request with the same key within 24 hours gets the first answer (with Idempotent-Replayed: true) and creates nothing. The same key with another request is 400; a repeat while the first still runs is 409.',
  schema: { type: 'string', minLength: 1, maxLength: 255 },
};

export function openApiDocument(router: RestRouter, schema: GraphQLSchema, publicBaseUrl: string): Schema {
  const components: Components = { schema, schemas: { Pagination: PAGINATION, ErrorEnvelope: errorEnvelope() } };
  const paths: Record<string, Record<string, Schema>> = {};
  for (const route of router.routes) {
    const oaPath = `/v1${route.spec.path.replace(/:([A-Za-z]+)/g, '{$1}')}`;
    paths[oaPath] ??= {};
    paths[oaPath][route.spec.method.toLowerCase()] = operationOf(components, route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Workflow service',
      version: '1.0.0',
      description:
        'REST interface of the workflow service. Every response uses the envelope { success, data, pagination? } or { success: false, error }.',
    },
    servers: [{ url: publicBaseUrl.replace(/\/v1$/, '') }],
    components: {
      schemas: components.schemas,
      securitySchemes: { bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT (OpenID Connect ID token)' } },
    },
    paths,
  };
}

/** The named schemas of the document, defined as the routes first refer to them. */
interface Components {
  schema: GraphQLSchema;
  schemas: Record<string, Schema>;
}

const PAGINATION: Schema = {
  type: 'object',
  required: ['nextCursor', 'hasMore', 'count'],
  properties: {
    nextCursor: { type: ['string', 'null'], description: 'The cursor of the next page; null on the last page.' },
    hasMore: { type: 'boolean' },
    count: { type: 'integer' },
  },
};

function errorEnvelope(): Schema {
  return {
    type: 'object',
    required: ['success', 'error'],
    properties: {
      success: { const: false },
      error: {
        type: 'object',
        required: ['code', 'message', 'details'],
        properties: { code: { type: 'string', enum: Object.keys(errorTable) }, message: { type: 'string' }, details: { type: 'object' } },
      },
    },
  };
}

/**
 * OpenAPI 3.1 is JSON Schema: a value that may be null says so in its type (`["string", "null"]`),
 * or, for a referenced object, with `anyOf` (3.0's `nullable` keyword no longer exists).
 */
function orNull(out: Schema): Schema {
  if (out.$ref) return { anyOf: [out, { type: 'null' }] };
  if (typeof out.type === 'string')
    return { ...out, type: [out.type, 'null'], ...(Array.isArray(out.enum) ? { enum: [...(out.enum as unknown[]), null] } : {}) };
  return out;
}

/** The JSON Schema of a GraphQL type; object types become references to named schemas. */
function toSchema(components: Components, type: GraphQLOutputType | GraphQLInputType, allowNull = true): Schema {
  const inner = isNonNullType(type) ? type.ofType : type;
  const nullable = allowNull && !isNonNullType(type);
  let out: Schema;
  if (isListType(inner)) out = { type: 'array', items: toSchema(components, inner.ofType) };
  else {
    const named = getNamedType(inner);
    if (isEnumType(named)) out = { type: 'string', enum: named.getValues().map((v) => v.name) };
    else if (isObjectType(named) || isInputObjectType(named)) {
      define(components, named.name);
      out = { $ref: `#/components/schemas/${named.name}` };
    } else out = SCALARS[named.name] ?? { type: 'string' };
  }
  return nullable ? orNull(out) : out;
}

/** Adds the named schema of an object or input object type (once). */
function define(components: Components, name: string): void {
  const { schemas } = components;
  if (schemas[name]) return;
  schemas[name] = {};
  const type = components.schema.getType(name);
  if (!isObjectType(type) && !isInputObjectType(type)) return;
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const field of Object.values(type.getFields())) {
    if (field.extensions?.restExclude) continue;
    if (
      'args' in field &&
      field.args.some((a: { type: GraphQLInputType; defaultValue: unknown }) => isNonNullType(a.type) && a.defaultValue === undefined)
    )
      continue;
    properties[field.name] = { ...toSchema(components, field.type), ...(field.description ? { description: field.description } : {}) };
    // An answer always has every key of its type, null when there is no value (docs/decisions.md);
    // an input object needs only its non-null fields.
    if (isObjectType(type) || isNonNullType(field.type)) required.push(field.name);
  }
  schemas[name] = {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    ...(type.description ? { description: type.description } : {}),
  };
}

/** One route's operation object: its parameters, request body and responses. */
function operationOf(components: Components, route: CompiledRoute): Schema {
  const { spec } = route;
  const { parameters, body } = inputsOf(components, route);
  const success = successOf(components, route);
  if (createsResource(spec)) parameters.push(IDEMPOTENCY_KEY);
  const errorRef = {
    description: 'An error in the envelope',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
  };
  return {
    operationId: route.fieldName,
    summary: spec.summary,
    tags: [spec.tag],
    security: [{ bearerAuth: [] }],
    ...(parameters.length ? { parameters } : {}),
    ...(body ? { requestBody: body } : {}),
    responses: {
      [String(spec.status ?? 200)]: success,
      '400': errorRef,
      '401': errorRef,
      '404': errorRef,
      ...(createsResource(spec) ? { '409': errorRef } : {}),
      ...(spec.ifMatch ? { '412': errorRef } : {}),
      '429': errorRef,
      '500': errorRef,
    },
  };
}

/** A route's arguments as path, header and query parameters, and, for a method with a body, its request body. */
function inputsOf(components: Components, route: CompiledRoute): { parameters: Schema[]; body: Schema | null } {
  const { spec } = route;
  const hasBody = ['POST', 'PUT', 'PATCH'].includes(spec.method);
  const parameters: Schema[] = [];
  const bodyProps: Record<string, Schema> = {};
  const bodyRequired: string[] = [];
  for (const arg of route.args) {
    const s = { ...toSchema(components, arg.type), ...(arg.description ? { description: arg.description } : {}) };
    if (arg.name === spec.ifMatch) parameters.push(IF_MATCH);
    else if (route.paramNames.includes(arg.name)) parameters.push({ name: arg.name, in: 'path', required: true, schema: s });
    else if (hasBody) {
      bodyProps[arg.name] = s;
      if (isNonNullType(arg.type)) bodyRequired.push(arg.name);
    } else
      parameters.push({
        name: arg.name,
        in: 'query',
        required: isNonNullType(arg.type),
        schema: { ...toSchema(components, arg.type, false), ...(arg.description ? { description: arg.description } : {}) },
      });
  }
  if (!hasBody) return { parameters, body: null };
  const body: Schema = {
    required: bodyRequired.length > 0,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          additionalProperties: false,
          properties: bodyProps,
          ...(bodyRequired.length ? { required: bodyRequired } : {}),
        },
      },
    },
  };
  return { parameters, body };
}

/** A route's success response: the envelope around its data, or, for a document route, the document. */
function successOf(components: Components, route: CompiledRoute): Schema {
  const { spec } = route;
  if (spec.document)
    return { description: 'The document', content: { 'application/json': {}, 'application/yaml': {}, 'text/markdown': {} } };
  const resultType = route.field.type;
  const named = getNamedType(resultType);
  const dataSchema =
    spec.list && isObjectType(named) ? toSchema(components, named.getFields().data!.type) : toSchema(components, resultType);
  const envelope: Schema = {
    type: 'object',
    required: ['success', 'data', ...(spec.list ? ['pagination'] : [])],
    properties: {
      success: { const: true },
      data: dataSchema,
      ...(spec.list ? { pagination: { $ref: '#/components/schemas/Pagination' } } : {}),
    },
  };
  return {
    description: spec.summary,
    ...(spec.etag ? { headers: { ETag: ETAG } } : {}),
    content: { 'application/json': { schema: envelope } },
  };
}
