import { describe, expect } from 'vitest';
import { serviceTest } from './helpers/service-test.js';
import { sampleManifest } from './helpers/workflows.js';

/**
 * One error module: whatever a service or the database throws becomes the same error on every
 * face (AppError.from), GraphQL error bodies have one shape, and a 400 for several inputs is
 * assembled one way (the messages joined, each input named in details.fields).
 */
describe('one error module, seen through REST and GraphQL', () => {
  serviceTest('a database refusal (a NUL character in text) is the same 400 in REST and GraphQL', async ({ service: t, alice: token }) => {
    const rest = await t.call('POST', '/v1/workflows', { token, body: { name: 'nul\u0000name', manifest: sampleManifest() } });
    expect(rest.status).toBe(400);
    expect(rest.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { reason: 'nul_character', fields: [] } });
    const gql = await t.graphql(
      'mutation ($name: String!, $manifest: JSON!) { createWorkflow(name: $name, manifest: $manifest) { workflowId } }',
      { name: 'nul\u0000name', manifest: sampleManifest() },
      token,
    );
    expect(gql.body.errors[0]).toMatchObject({
      message: rest.body.error.message,
      extensions: { code: 'VALIDATION_ERROR', details: rest.body.error.details },
    });
  });

  serviceTest('a GraphQL refusal made before the operation runs has the one body shape', async ({ service: t }) => {
    const res = await t.call('POST', '/graphql', { body: { query: '{ me { userId } }' } });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ errors: [{ message: expect.any(String), extensions: { code: 'UNAUTHORIZED', details: {} } }] });
  });

  serviceTest('several offending inputs make one 400: the messages joined, each input named', async ({ service: t, alice: token }) => {
    const res = await t.call('POST', '/v1/workflows', {
      token,
      body: { name: ' ', category: 'c'.repeat(51), manifest: sampleManifest() },
    });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('name must not be empty; category must be at most 50 characters');
    expect(res.body.error.details).toEqual({
      fields: [
        { field: 'name', message: 'name must not be empty' },
        { field: 'category', message: 'category must be at most 50 characters' },
      ],
    });
    const deployment = await t.call('POST', '/v1/deployments', { token, body: { name: 'd', workflowIds: [] } });
    expect(deployment.body.error).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'workflowIds must name at least one workflow',
      details: { fields: [{ field: 'workflowIds', message: 'workflowIds must name at least one workflow' }] },
    });
  });
});
