import type { Services } from '../services.js';
import type { Loaders } from './loaders.js';

/** The authenticated person behind a request. */
export interface Viewer {
  userId: string;
  email: string | null;
  issuer: string;
  subject: string;
}

export interface GraphQLContext {
  viewer: Viewer | null;
  services: Services;
  requestId: string;
  loaders: Loaders;
}
