import { expect } from 'vitest';
import type { CallResult, TestApp } from './app.js';

/**
 * Reads every page of a marketplace list with a small page size, following nextCursor.
 * Returns the workflow ids in the order served.
 */
export async function readAllPages(t: TestApp, token: string, path: string, limit = 2): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (let guard = 0; guard < 200; guard += 1) {
    const sep = path.includes('?') ? '&' : '?';
    const res: CallResult = await t.call('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, {
      token,
    });
    expect(res.status, res.text).toBe(200);
    ids.push(...res.body.data.map((w: { workflowId: string }) => w.workflowId));
    expect(res.body.pagination.count).toBe(res.body.data.length);
    cursor = res.body.pagination.nextCursor;
    if (!cursor) {
      expect(res.body.pagination.hasMore).toBe(false);
      return ids;
    }
    expect(res.body.pagination.hasMore).toBe(true);
  }
  throw new Error('too many pages');
}

/** Subscribes each token's user to the workflow and has them review it. */
export async function subscribeAndReview(t: TestApp, tokens: string[], workflowId: string, ratings: number[]): Promise<void> {
  for (const [i, token] of tokens.entries()) {
    const sub = await t.call('POST', `/v1/library/${workflowId}`, { token, body: {} });
    expect(sub.status, sub.text).toBe(201);
    const review = await t.call('POST', `/v1/workflows/${workflowId}/reviews`, {
      token,
      body: { rating: ratings[i % ratings.length], text: 'A useful workflow, recommended.' },
    });
    expect(review.status, review.text).toBe(201);
  }
}

export async function tokens(t: TestApp, prefix: string, n: number): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < n; i += 1) out.push(await t.token(`${prefix}-${i}@example.com`));
  return out;
}
