import type { Api } from '../api.js';
import type { Output } from '../output.js';

/** What every command's action gets: the output in its mode, and the service it talks to (read when used). */
export interface CommandContext {
  out: Output;
  /** --json: one JSON document on stdout. */
  json: boolean;
  /** The service's origin (--service, WFCTL_SERVICE or the default); refused when not an http(s) origin. */
  service(): string;
  /** A client of the service with the current credential. */
  api(): Api;
}
