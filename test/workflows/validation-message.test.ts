import { describe, expect } from 'vitest';
import { STEP_ACTIONS } from '../../src/manifest/types.js';
import { serviceTest } from '../helpers/service-test.js';

const test = serviceTest.extend<{ owner: string }>({
  owner: [async ({ service: t }, use) => use(await t.token('refused-manifest@example.com')), { scope: 'file' }],
});

/**
 * A manifest refused through REST: the error keeps the one error shape of the specification
 * (success false; error with code, message and details), and a list of allowed values a problem's
 * message carries (the 32 actions) appears once in the answer, in details.manifestErrors.
 */

function manifestWithAction(action: string) {
  return {
    manifest_version: '1.0',
    name: 'Refused',
    intent: 'Show one list',
    steps: [
      { id: 'plan', name: 'Plan it', action: 'planning_agent' },
      { id: 'odd', name: 'Odd step', action, depends_on: ['plan'] },
    ],
  };
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe('a refused manifest names the allowed actions once', () => {
  test('an unknown action with nothing close: the summary points at details.manifestErrors, which lists every action once', async ({
    service: t,
    owner,
  }) => {
    const res = await t.call('POST', '/v1/workflows', {
      token: owner,
      body: { name: 'Refused', manifest: manifestWithAction('qqqqqqqqqqqq') },
    });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body)).toEqual(['success', 'error']);
    expect(res.body.success).toBe(false);
    expect(Object.keys(res.body.error).sort()).toEqual(['code', 'details', 'message']);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const expectedMessage =
      "the manifest is not valid (1 problem): steps[1].action (step 'odd'): 'qqqqqqqqqqqq' is not a known action (the allowed ones are listed in details.manifestErrors)";
    expect(res.body.error.message).toBe(expectedMessage);
    expect(res.body.error.details.fields).toEqual([{ field: 'manifest', message: expectedMessage }]);
    expect(res.body.error.details.manifestErrors).toHaveLength(1);
    const [problem] = res.body.error.details.manifestErrors;
    expect(problem).toMatchObject({ path: '/steps/1/action', code: 'unknown_action' });
    expect(problem.message).toBe(
      `steps[1].action (step 'odd'): 'qqqqqqqqqqqq' is not a known action; allowed actions: ${STEP_ACTIONS.map((a) => `'${a}'`).join(', ')}`,
    );
    // Each action once in the whole answer (code_agent also once: no action's name contains another's quoted).
    for (const action of STEP_ACTIONS) expect(count(res.text, `'${action}'`), action).toBe(1);
  });

  test('an unknown action close to a known one keeps its suggestion in the summary', async ({ service: t, owner }) => {
    const res = await t.call('POST', '/v1/workflows', {
      token: owner,
      body: { name: 'Refused', manifest: manifestWithAction('test_agnet') },
    });
    expect(res.status).toBe(400);
    const expectedMessage =
      "the manifest is not valid (1 problem): steps[1].action (step 'odd'): 'test_agnet' is not a known action (did you mean 'test_agent'?)";
    expect(res.body.error.message).toBe(expectedMessage);
    expect(res.body.error.details.manifestErrors[0].message).toBe(
      "steps[1].action (step 'odd'): 'test_agnet' is not a known action (did you mean 'test_agent'?)",
    );
  });

  test('an update (PUT) and an unknown property list their allowed names once too', async ({ service: t, owner }) => {
    const created = await t.call('POST', '/v1/workflows', {
      token: owner,
      body: { name: 'Kept', manifest: manifestWithAction('code_agent') },
    });
    expect(created.status).toBe(201);
    const manifest = manifestWithAction('code_agent') as Record<string, unknown>;
    (manifest.steps as Record<string, unknown>[])[1]!.zzzzzz = true;
    const res = await t.call('PUT', `/v1/workflows/${created.body.data.workflowId}`, { token: owner, body: { manifest } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      "the manifest is not valid (1 problem): steps[1] (step 'odd') has an unknown property 'zzzzzz' (the allowed ones are listed in details.manifestErrors)",
    );
    expect(count(res.text, 'allowed properties:')).toBe(1);
    expect(res.body.error.details.manifestErrors[0].message).toMatch(/; allowed properties: 'id', 'name', /);
  });
});
