/**
 * Responses whose body is text the service has just made. Reading that text back out of a
 * Response's stream costs more than building the answer (measured on GET /v1/workflows/:id), so
 * the text is kept beside the response and the HTTP server (src/http/node.ts) writes it in one call.
 */
const texts = new WeakMap<Response, string>();

/** A Response whose body is `body`, written by the server without reading its stream. */
export function textResponse(body: string, init: ResponseInit): Response {
  const response = new Response(body, init);
  texts.set(response, body);
  return response;
}

/** The text of a response made by textResponse, or undefined for any other. */
export function textOf(response: Response): string | undefined {
  return texts.get(response);
}
