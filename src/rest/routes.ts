/**
 * The REST route table: each route of the specification mapped onto the GraphQL field that
 * serves it. Path parameters, query parameters and the JSON body fields become the field's
 * arguments of the same names. Adding a route is one line here plus the GraphQL field.
 */
export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteSpec {
  method: HttpMethod;
  /** Path below /v1, with :params. */
  path: string;
  /** `Query.<field>` or `Mutation.<field>`. */
  field: string;
  /** Status of a successful answer (default 200). */
  status?: number;
  /** The field returns `{ data, pagination }`: both go to the top level of the envelope. */
  list?: boolean;
  /** The field returns `{ contentType, body }`, sent as a document rather than in the envelope. */
  document?: boolean;
  summary: string;
  tag: string;
}

export const routes: RouteSpec[] = [
  { method: 'GET', path: '/users/me', field: 'Query.me', summary: 'The signed-in user with counts', tag: 'Users' },
  { method: 'POST', path: '/manifests/validate', field: 'Mutation.validateManifest', summary: 'Validate a manifest without storing it', tag: 'Manifests' },
];
