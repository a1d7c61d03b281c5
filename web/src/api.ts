import { useCallback, useEffect, useRef, useState } from 'react';
import type { TypedDocumentString } from './gql/graphql';

/**
 * The dashboard's one way to the service: generated, typed GraphQL documents sent to /graphql with
 * the session cookie (HttpOnly: the page never sees it). Errors come back as ApiError with the
 * service's code, so each page can say what happened in words a person understands.
 */

export type ErrorKind = 'UNAUTHORIZED' | 'PLAN_LIMIT_EXCEEDED' | 'RATE_LIMITED' | 'VALIDATION_ERROR' | 'NETWORK' | string;

export class ApiError extends Error {
  constructor(
    message: string,
    readonly code: ErrorKind,
    readonly details: Record<string, unknown> = {},
    /** Seconds to wait before retrying (429, 503). */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; path?: (string | number)[]; extensions?: { code?: string; details?: Record<string, unknown> } }[];
}

/** Where the browser goes to sign in and come back to the page it is on. */
export function signInUrl(): string {
  return `/sign-in?return=${encodeURIComponent(window.location.pathname + window.location.search)}`;
}

export async function request<R, V>(
  document: TypedDocumentString<R, V>,
  ...[variables]: V extends Record<string, never> ? [] | [V] : [V]
): Promise<R> {
  let response: Response;
  try {
    response = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: document.toString(), variables }),
    });
  } catch {
    throw new ApiError('The service could not be reached. Check your connection and try again; what you typed is kept.', 'NETWORK');
  }
  let body: GraphQLResponse<R>;
  try {
    body = (await response.json()) as GraphQLResponse<R>;
  } catch {
    throw new ApiError(
      `The service answered ${response.status} without a readable body. Try again in a moment.`,
      response.status >= 500 ? 'NETWORK' : 'INTERNAL_ERROR',
    );
  }
  const retryAfterHeader = response.headers.get('retry-after');
  const retryAfter = retryAfterHeader && /^\d+$/.test(retryAfterHeader) ? Number(retryAfterHeader) : null;
  const first = body.errors?.[0];
  if (first) {
    const details = first.extensions?.details ?? {};
    const retry = retryAfter ?? (typeof details.retryAfter === 'number' ? details.retryAfter : null);
    throw new ApiError(
      first.message,
      first.extensions?.code ?? (response.status === 401 ? 'UNAUTHORIZED' : 'INTERNAL_ERROR'),
      details,
      retry,
    );
  }
  if (!response.ok || !body.data)
    throw new ApiError(`The service answered ${response.status}.`, response.status === 401 ? 'UNAUTHORIZED' : 'INTERNAL_ERROR');
  return body.data;
}

export interface QueryState<R> {
  data: R | null;
  error: ApiError | null;
  loading: boolean;
  reload: () => void;
}

/** Runs a query when the page opens and whenever its variables change. */
export function useQuery<R, V>(document: TypedDocumentString<R, V>, variables?: V, options: { skip?: boolean } = {}): QueryState<R> {
  const [state, setState] = useState<{ data: R | null; error: ApiError | null; loading: boolean }>({
    data: null,
    error: null,
    loading: !options.skip,
  });
  const [generation, setGeneration] = useState(0);
  const key = JSON.stringify(variables ?? null);
  const latest = useRef(0);
  useEffect(() => {
    if (options.skip) return;
    const run = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    (request as (d: TypedDocumentString<R, V>, v?: V) => Promise<R>)(document, variables).then(
      (data) => run === latest.current && setState({ data, error: null, loading: false }),
      (error: unknown) => run === latest.current && setState((s) => ({ data: s.data, error: toApiError(error), loading: false })),
    );
  }, [document, key, generation, options.skip]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { ...state, reload };
}

function toApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(error instanceof Error ? error.message : String(error), 'INTERNAL_ERROR');
}

/** A mutation with its pending state and last error. */
export function useMutation<R, V>(document: TypedDocumentString<R, V>) {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const run = useCallback(
    async (variables: V): Promise<R | null> => {
      setPending(true);
      setError(null);
      try {
        return await (request as (d: TypedDocumentString<R, V>, v?: V) => Promise<R>)(document, variables);
      } catch (e) {
        setError(toApiError(e));
        return null;
      } finally {
        setPending(false);
      }
    },
    [document],
  );
  return { run, pending, error, clearError: () => setError(null) };
}
