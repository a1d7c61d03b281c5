import { refresh } from './auth.js';
import { credentialStore, type StoredCredential } from './credentials.js';
import { CliError } from './output.js';

/**
 * The service's REST API as the command line calls it: the credential (an API key from
 * `WFCTL_API_KEY`, else the stored sign-in, renewed when it expires), the response envelope, and
 * errors carrying the service's code with what to do about them.
 */

export interface Credential {
  kind: 'api_key' | 'oauth';
  token: string;
  stored?: StoredCredential;
}

export interface Page<T> {
  data: T[];
  pagination?: { nextCursor: string | null; hasMore: boolean };
}

const HINTS: Record<string, string> = {
  UNAUTHORIZED: 'Sign in again with wfctl login (or check WFCTL_API_KEY).',
  FORBIDDEN: 'The credential does not allow this: sign in with wfctl login, or use an API key of scope "api".',
  NOT_FOUND: 'Check the id: wfctl deployments list, or the workflow ids in the state file (wfctl pull).',
  RATE_LIMITED: 'Wait a moment and run it again.',
  PLAN_LIMIT_EXCEEDED: "Your plan's limit is reached: remove something, or upgrade the plan in the dashboard.",
  SERVICE_UNAVAILABLE: 'The service is busy or its database does not answer: try again shortly.',
  VALIDATION_ERROR: 'Fix the input named in the message and run it again.',
  CONFLICT: 'It was changed by someone else: wfctl pull, then apply your change again.',
  PRECONDITION_FAILED: 'It changed on the service since you read it: wfctl pull, apply your change again, and push.',
};

export function currentCredential(service: string): Credential | null {
  const key = process.env.WFCTL_API_KEY;
  if (key) return { kind: 'api_key', token: key.trim() };
  const stored = credentialStore().load(service);
  return stored ? { kind: 'oauth', token: stored.accessToken, stored } : null;
}

export class Api {
  private credential: Credential | null;

  constructor(
    readonly service: string,
    credential: Credential | null = currentCredential(service),
  ) {
    this.credential = credential;
  }

  get credentialKind(): Credential['kind'] | null {
    return this.credential?.kind ?? null;
  }

  private async token(): Promise<string> {
    const credential = this.credential;
    if (!credential)
      throw new CliError(
        'NOT_SIGNED_IN',
        `not signed in to ${this.service}`,
        'Run wfctl login (or wfctl login --device over SSH), or set WFCTL_API_KEY to an API key of scope "api".',
      );
    if (credential.kind === 'oauth' && credential.stored && credential.stored.expiresAt - 30_000 < Date.now()) await this.renew();
    return this.credential!.token;
  }

  private async renew(): Promise<boolean> {
    const stored = this.credential?.stored;
    if (!stored) return false;
    const next = await refresh(stored);
    if (!next) {
      throw new CliError('UNAUTHORIZED', 'the sign-in has ended (expired, revoked, or signed out elsewhere)', 'Run wfctl login again.');
    }
    this.credential = { kind: 'oauth', token: next.accessToken, stored: next };
    return true;
  }

  /**
   * Calls `/v1<path>` and returns the envelope's `data` (with `pagination` for lists); `headers`
   * adds request headers (If-Match).
   */
  async call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    return (await this.envelope<T>(method, path, body, headers)).data as T;
  }

  /** A GET's `data` with its ETag (null when the service sends none), for a conditional write after it. */
  async read<T = any>(path: string): Promise<{ data: T; etag: string | null }> {
    const answer = await this.envelope<T>('GET', path);
    return { data: answer.data, etag: answer.etag };
  }

  async list<T = any>(path: string): Promise<T[]> {
    const items: T[] = [];
    let cursor: string | null = null;
    // Bounded: 100 pages of 100 is more than any plan holds.
    for (let page = 0; page < 100; page += 1) {
      const separator = path.includes('?') ? '&' : '?';
      const answer: Page<T> = (await this.envelope<T[]>(
        'GET',
        `${path}${separator}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      )) as Page<T>;
      items.push(...answer.data);
      cursor = answer.pagination?.nextCursor ?? null;
      if (!answer.pagination?.hasMore || !cursor) break;
    }
    return items;
  }

  /** The raw text of a GET (exports such as a manifest in YAML). */
  async text(path: string): Promise<string> {
    const response = await this.send('GET', path);
    const text = await response.text();
    if (!response.ok) throw this.failure(response.status, text, response.headers.get('content-type'));
    return text;
  }

  private async envelope<T>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<{ data: T; pagination?: Page<T>['pagination']; etag: string | null }> {
    const response = await this.send(method, path, body, headers);
    const text = await response.text();
    if (!response.ok) throw this.failure(response.status, text, response.headers.get('content-type'));
    let answer: unknown = null;
    try {
      answer = JSON.parse(text);
    } catch {
      // Not JSON: not the service (a web page, a proxy's page).
    }
    if (!answer || typeof answer !== 'object' || !('data' in answer))
      throw this.notTheService(response.status, response.headers.get('content-type'));
    const envelope = answer as { data: T; pagination?: Page<T>['pagination'] };
    return { data: envelope.data, pagination: envelope.pagination, etag: response.headers.get('etag') };
  }

  /** The address answers, but not with the service's JSON envelope: another web server, or the wrong path. */
  private notTheService(status: number, contentType: string | null): CliError {
    return new CliError(
      'SERVICE_UNREACHABLE',
      `${this.service} does not answer as the workflow service (it answered ${status}${contentType ? ` with ${contentType.split(';')[0]}` : ''}, not the service's JSON)`,
      "Check the address (--service or WFCTL_SERVICE): it is the service's origin, such as http://127.0.0.1:4000 (without /v1).",
    );
  }

  private async send(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
    retried = false,
  ): Promise<Response> {
    const url = `${this.service}/v1${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${await this.token()}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          'user-agent': 'wfctl',
          ...headers,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (error) {
      if (error instanceof CliError) throw error;
      throw new CliError(
        'SERVICE_UNREACHABLE',
        `the service at ${this.service} could not be reached (${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)})`,
        'Check the address (--service or WFCTL_SERVICE) and that the service is running.',
      );
    }
    // An access token can be revoked or expire early: renew once and try again.
    if (response.status === 401 && !retried && this.credential?.kind === 'oauth' && this.credential.stored?.refreshToken) {
      await response.body?.cancel();
      await this.renew();
      return this.send(method, path, body, headers, true);
    }
    return response;
  }

  private failure(status: number, text: string, contentType: string | null): CliError {
    let error: { code?: string; message?: string; details?: unknown } | undefined;
    try {
      error = (JSON.parse(text) as { error?: typeof error }).error;
    } catch {
      // Not the service's envelope (a proxy's page, another web server).
    }
    // A refusal without the service's error envelope: a proxy in front of the service that is down
    // (5xx) is told as unavailable; anything else is not the service at all, whatever its status.
    if (!error?.code) {
      if (status >= 500)
        return new CliError(
          'SERVICE_UNAVAILABLE',
          `${this.service} answered ${status} without the service's JSON (a proxy whose service does not answer?)`,
          'Try again shortly; if it persists, check the address (--service or WFCTL_SERVICE) and that the service is running.',
        );
      return this.notTheService(status, contentType);
    }
    const code = error.code;
    let hint = HINTS[code];
    if (code === 'UNAUTHORIZED' && this.credential?.kind === 'api_key')
      hint = 'The API key in WFCTL_API_KEY is unknown, revoked or expired: create a new one in the dashboard.';
    if (code === 'FORBIDDEN' && this.credential?.kind === 'api_key')
      hint = 'The API key in WFCTL_API_KEY must have scope "api" for this: create one with that scope.';
    return new CliError(code, error?.message ?? `the service answered ${status}`, hint, error?.details);
  }
}
