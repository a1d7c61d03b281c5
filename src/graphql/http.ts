import type { Viewer } from '../auth/viewer.js';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { assertJsonDepth, readBodyText } from '../http/body.js';
import { toFetchRequest, type Incoming } from '../http/incoming.js';
import type { RequestScope } from '../http/scope.js';
import type { Reply } from '../http/text-response.js';
import type { Logger } from '../logger.js';
import { graphqlErrorReply } from './errors.js';
import { graphiqlPage } from './graphiql.js';
import { answerPlainPost, asksForJson, plainParams, sendsJson } from './plain-post.js';
import { boundedAnswer, type GraphQLHandler } from './yoga.js';

/**
 * The /graphql entry: GraphiQL for a browser outside production, then the caller, the body's
 * limits, and the operation, through the plain-POST fast path (plain-post.ts) when the request is
 * plain JSON, or through Yoga.
 */

export interface GraphQLEntry {
  config: Config;
  log: Logger;
  handler: GraphQLHandler;
  /** Whether plain JSON POSTs skip Yoga's HTTP layer (plain-post.ts). */
  plainPosts: boolean;
}

/** `viewerOf` finds and charges the caller (the token, or the dashboard's session). */
export async function answerGraphQL(
  entry: GraphQLEntry,
  request: Incoming,
  scope: RequestScope,
  viewerOf: () => Promise<Viewer>,
): Promise<Reply> {
  const { config, handler: graphql, log } = entry;
  scope.route = `${request.method} /graphql`;
  const wantsPage = request.method === 'GET' && (request.headers.get('accept') ?? '').includes('text/html');
  if (wantsPage && !config.production) return graphiqlPage(request.headers.get('accept-encoding'), false);
  let viewer: Viewer;
  try {
    viewer = await viewerOf();
  } catch (error) {
    return graphqlErrorReply(AppError.from(error));
  }
  if (request.method !== 'POST') {
    const forwarded = toFetchRequest(request, undefined, graphql.fetchAPI);
    return boundedAnswer(await graphql.fetch(forwarded, { viewer, requestId: scope.requestId, chargeMore: scope.chargeMore }));
  }
  // Read the body here so the size and nesting limits hold for GraphQL as they do for REST.
  let body: string;
  try {
    body = await readBodyText(request, config.bodyLimitBytes);
    assertJsonDepth(body);
  } catch (error) {
    // A body that cannot be read (too large, not UTF-8, too deep) is answered as GraphQL answers errors.
    return graphqlErrorReply(AppError.from(error));
  }
  const forwarded = toFetchRequest(request, body, graphql.fetchAPI);
  const params =
    entry.plainPosts && sendsJson(request.headers.get('content-type')) && asksForJson(request.headers.get('accept'))
      ? plainParams(body)
      : null;
  if (params) {
    const context = { viewer, requestId: scope.requestId, chargeMore: scope.chargeMore, request: forwarded };
    let answer: Response | null;
    try {
      answer = await answerPlainPost(graphql.getEnveloped, graphql.fetchAPI, params, context);
    } catch (error) {
      // Thrown out of execution rather than answered in `errors`: a fault of the service.
      const failure = AppError.from(error);
      if (failure.unexpected) log.error({ err: error, requestId: scope.requestId }, 'unexpected error executing a GraphQL operation');
      return graphqlErrorReply(failure);
    }
    if (answer) return boundedAnswer(answer);
  }
  return boundedAnswer(await graphql.fetch(forwarded, { viewer, requestId: scope.requestId, chargeMore: scope.chargeMore }));
}
