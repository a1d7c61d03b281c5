import { envelop, useEngine, useSchema } from '@envelop/core';
import { buildSchema, execute, parse, specifiedRules, subscribe, validate, type GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { selectsItsOnlyOperation, useJit } from '../../src/graphql/jit.js';
import type { TestApp } from '../helpers/app.js';
import { serviceTest } from '../helpers/service-test.js';
import { createWorkflow } from '../helpers/workflows.js';

/** /graphql and the REST routes run on one pipeline, whose executor is graphql-jit. */
/** A user with one workflow. */
const pipelineTest = serviceTest.extend<{ token: string }>({
  token: [
    async ({ service }, use) => {
      const token = await service.token('pipeline@example.com');
      await createWorkflow(service, token);
      await use(token);
    },
    { scope: 'file' },
  ],
});

describe('the GraphQL pipeline', () => {
  async function named(t: TestApp, token: string, query: string, operationName: string | undefined) {
    const res = await t.app.fetch(
      new Request('http://localhost/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ query, operationName }),
      }),
    );
    return { status: res.status, body: (await res.json()) as { data?: Record<string, unknown>; errors?: GraphQLError[] } };
  }

  pipelineTest('answers the operation each request names when one document holds several', async ({ service: t, token }) => {
    const document = 'query Who { me { email } } query Count { me { workflowCount } }';
    for (let round = 0; round < 2; round += 1) {
      expect((await named(t, token, document, 'Who')).body.data).toEqual({ me: { email: 'pipeline@example.com' } });
      expect((await named(t, token, document, 'Count')).body.data).toEqual({ me: { workflowCount: 1 } });
    }
  });

  pipelineTest(
    'refuses an operation name the document lacks, and still answers the document under its own name',
    async ({ service: t, token }) => {
      const document = 'query Mine { me { workflowCount } }';
      const wrong = await named(t, token, document, 'Theirs');
      expect(wrong.body.data).toBeUndefined();
      expect(wrong.body.errors?.length).toBe(1);
      expect((await named(t, token, document, 'Mine')).body.data).toEqual({ me: { workflowCount: 1 } });
      expect((await named(t, token, document, undefined)).body.data).toEqual({ me: { workflowCount: 1 } });
    },
  );

  pipelineTest('answers a REST route and the GraphQL field it maps to alike', async ({ service: t, token }) => {
    const rest = await t.call('GET', '/v1/users/me', { token });
    const graphql = await t.graphql('{ me { email workflowCount } }', {}, token);
    expect(rest.status).toBe(200);
    expect(rest.body.data).toMatchObject(graphql.body.data.me);
  });
});

describe('graphql-jit in the pipeline', () => {
  const schema = buildSchema('type Query { hello: String }');

  function pipelineWith(onRefused: (errors: readonly GraphQLError[]) => void) {
    const getEnveloped = envelop({
      plugins: [useEngine({ parse, validate, execute, subscribe, specifiedRules }), useSchema(schema), useJit({ onRefused })],
    });
    const { execute: run } = getEnveloped();
    return (document: ReturnType<typeof parse>, variableValues: Record<string, unknown> = {}) =>
      run({ schema, document, rootValue: { hello: 'world' }, variableValues, contextValue: {} }) as Promise<{
        data?: unknown;
        errors?: readonly GraphQLError[];
      }>;
  }

  it('compiles a document it can run and answers from the compiled operation', async () => {
    const refusals: (readonly GraphQLError[])[] = [];
    const run = pipelineWith((errors) => refusals.push(errors));
    const document = parse('{ hello }');
    expect(await run(document)).toMatchObject({ data: { hello: 'world' } });
    expect(await run(document)).toMatchObject({ data: { hello: 'world' } });
    expect(refusals).toEqual([]);
  });

  it('remembers a document it refuses: compiled once, answered with the refusal every time', async () => {
    const refusals: (readonly GraphQLError[])[] = [];
    const run = pipelineWith((errors) => refusals.push(errors));
    // Validation would refuse a nullable variable in @skip(if:); graphql-jit refuses it as well.
    const document = parse('query Q($skip: Boolean) { hello @skip(if: $skip) }');
    const answers = [await run(document, { skip: false }), await run(document, { skip: false }), await run(document)];
    expect(refusals).toHaveLength(1);
    expect(refusals[0]?.[0]?.message).toMatch(/expecting type 'Boolean!'/);
    for (const answer of answers) {
      expect(answer.data).toBeUndefined();
      expect(answer.errors?.[0]?.message).toBe(refusals[0]?.[0]?.message);
    }
    // A second document with the same fault is a compilation of its own.
    await run(parse('query Q($skip: Boolean) { hello @skip(if: $skip) }'));
    expect(refusals).toHaveLength(2);
  });

  it('leaves to graphql-js the documents whose operation a request chooses', () => {
    expect(selectsItsOnlyOperation(parse('{ hello }'), undefined)).toBe(true);
    expect(selectsItsOnlyOperation(parse('query A { hello }'), 'A')).toBe(true);
    expect(selectsItsOnlyOperation(parse('query A { hello }'), 'B')).toBe(false);
    expect(selectsItsOnlyOperation(parse('query A { hello } query B { hello }'), 'A')).toBe(false);
    expect(selectsItsOnlyOperation(parse('fragment F on Query { hello }'), undefined)).toBe(false);
  });
});
