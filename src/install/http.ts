/**
 * The install routes under /v1/install/, which clients fetch by URL alone (no header):
 *
 *   <id>[/<key>]/marketplace.json                       a Claude Code plugin marketplace of the deployment
 *   <id>[/<key>]/plugin/<version>.zip                   its plugin, as the archive the marketplace pins
 *   <id>[/<key>]/.well-known/agent-skills/index.json    its Agent Skills discovery index (v0.2.0)
 *   <id>[/<key>]/.well-known/agent-skills/<name>/SKILL.md
 *   <id>/<key>/mcp                                      the key-bound tool endpoint (never offers OAuth), routed
 *                                                       to the tool endpoint by the route table (src/edge/router.ts)
 *   user/<key>/marketplace.json                         a marketplace of every deployment the key opens
 *
 * Without a key only an anonymous deployment answers. The key is a secret in a URL: route labels
 * (logs, metrics) name `:key`, never the key, and no answer or error repeats the path.
 */
import { AppError } from '../errors.js';
import type { Incoming } from '../http/incoming.js';
import type { RequestScope } from '../http/scope.js';
import { textResponse, type Reply } from '../http/text-response.js';
import { mapInSlices, renderSkill } from '../mcp/render/index.js';
import { looksLikeApiKey } from '../api-keys/secret.js';
import { createArtifactCache, type ArtifactOutcome, type InstallArtifacts } from './artifacts.js';
import {
  deploymentMarketplaceOf,
  marketplaceEntryOf,
  marketplaceOf,
  skillPathOf,
  userMarketplaceNameOf,
  type SkillDocument,
} from './catalogs.js';
import type { CatalogEntry } from './service.js';
import type { Services } from '../services.js';

export const INSTALL_PREFIX = '/v1/install/';

/**
 * The API key an install address carries in its path, or null: `/v1/install/user/<key>/…` and
 * `/v1/install/<deploymentId>/<key>/…`. The edge makes it the request's credential before routing
 * (src/edge/request-scope.ts), so a key-bound address is an ordinary authenticated request.
 */
export function keyOfAddress(path: string): string | null {
  if (!path.startsWith(INSTALL_PREFIX)) return null;
  const parts = path.slice(INSTALL_PREFIX.length).split('/');
  const key = parts[1];
  return parts.length >= 3 && key !== undefined && looksLikeApiKey(key) ? key : null;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** Catalogs change with the deployment: clients must ask again (they are small). */
const NO_STORE = 'no-store';

/** The fixed words of install addresses; every other segment is the caller's (an id, a key, a name). */
const ADDRESS_WORDS = new Set(['user', 'marketplace.json', 'plugin', 'mcp', '.well-known', 'agent-skills', 'index.json', 'SKILL.md']);
/** A deployment id as the service makes them (src/clock.ts, newId): never mistaken for a key. */
const ID_SHAPE = /^[a-z]{2,5}_[0-9a-z]{20}$/;
/** Shorter segments are no key, and replacing them would mangle ordinary words. */
const SHORTEST_SECRET = 8;

/**
 * The error without any segment of the address that may be a key (a key, a mistyped or misplaced
 * one, anything not a word of the address or an id's shape): a client shows or logs error texts,
 * and a key in one would leave the service with it.
 */
function withoutAddressSegments(error: unknown, pathname: string): unknown {
  if (!(error instanceof AppError)) return error;
  const secrets = new Set<string>();
  for (const raw of pathname.slice(INSTALL_PREFIX.length).split('/')) {
    let decoded = raw;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      // The raw form is what may be repeated.
    }
    for (const segment of [raw, decoded])
      if (segment.length >= SHORTEST_SECRET && !ADDRESS_WORDS.has(segment) && !ID_SHAPE.test(segment)) secrets.add(segment);
  }
  if (secrets.size === 0) return error;
  const scrub = (text: string) => {
    let out = text;
    for (const secret of secrets) out = out.split(secret).join('…');
    return out;
  };
  const scrubValue = (value: unknown): unknown => {
    if (typeof value === 'string') return scrub(value);
    if (Array.isArray(value)) return value.map(scrubValue);
    if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, scrubValue(v)]));
    return value;
  };
  const message = scrub(error.message);
  const details = scrubValue(error.details) as Record<string, unknown>;
  if (message === error.message && JSON.stringify(details) === JSON.stringify(error.details)) return error;
  return new AppError(error.code, message, details, error.headers);
}

function noRoute(): AppError {
  // The path may hold a key: the message does not repeat it.
  return new AppError('NOT_FOUND', "there is no such install address: copy the addresses from the deployment's install page", {});
}

function getOnly(request: Incoming): void {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    throw new AppError(
      'METHOD_NOT_ALLOWED',
      `${request.method} is not served here: install addresses answer GET`,
      { allowed: ['GET'] },
      { Allow: 'GET, HEAD' },
    );
  }
}

function jsonReply(value: unknown): Reply {
  return textResponse(`${JSON.stringify(value, null, 2)}\n`, { headers: { 'content-type': JSON_TYPE, 'cache-control': NO_STORE } });
}

async function skillsOf(entry: CatalogEntry): Promise<SkillDocument[]> {
  if (!entry.adapter) return [];
  const adapter = entry.adapter;
  return mapInSlices(await entry.workflows(), (w) => ({ ...renderSkill(w, adapter), digest: w.provenance.digest }));
}

/** What the install routes work with: the install service and the cache of built artefacts. */
interface RouteContext {
  install: Services['install'];
  artifacts: ReturnType<typeof createArtifactCache>;
}

/** The deployment of an address: with a key, the key's owner's (rate-limited as that user); without, an anonymous one. */
async function entryOf(ctx: RouteContext, scope: RequestScope, deploymentId: string, key: string | null): Promise<CatalogEntry> {
  if (key === null) return ctx.install.catalogOf(deploymentId, null, null);
  // The key is the scope's credential (keyOfAddress): charged to its owner before any work.
  const viewer = await scope.authenticate({ face: 'mcp', deploymentId });
  return ctx.install.catalogOf(deploymentId, key, viewer);
}

/** The entry's artefacts, built only when its content changed (src/install/artifacts.ts). */
function artifactsOf(ctx: RouteContext, entry: CatalogEntry): Promise<InstallArtifacts> {
  return ctx.artifacts.artifactsOf(entry.contentKey, entry.target, () => skillsOf(entry));
}

async function userCatalog(ctx: RouteContext, scope: RequestScope, key: string): Promise<Reply> {
  // The key is the scope's credential (keyOfAddress): charged to its owner before any work. The key is checked as an API key of its owner
  // (of either scope); which deployments it opens is the catalog's filter.
  const viewer = await scope.authenticate({ face: 'catalog' });
  const entries = await ctx.install.userCatalogOf(viewer, key);
  const plugins = [];
  for (const entry of entries) {
    let plugin;
    try {
      plugin = (await artifactsOf(ctx, entry)).plugin;
    } catch (error) {
      // A deployment too large for an archive is left out of the user's catalog, not the others.
      if (error instanceof AppError && error.code === 'PAYLOAD_TOO_LARGE') continue;
      throw error;
    }
    plugins.push(marketplaceEntryOf(entry.target, plugin));
  }
  return jsonReply(marketplaceOf(userMarketplaceNameOf(viewer.userId), 'Your workflow deployments', plugins));
}

/** `user/<key>/marketplace.json`: the only address under `user/`. */
function userRoute(ctx: RouteContext, request: Incoming, scope: RequestScope, parts: string[]): Promise<Reply> {
  const key = parts[1] ?? '';
  if (!looksLikeApiKey(key) || parts.length !== 3 || parts[2] !== 'marketplace.json') throw noRoute();
  scope.route = `${request.method} /v1/install/user/:key/marketplace.json`;
  getOnly(request);
  return userCatalog(ctx, scope, key);
}

/** The plugin archive at the version the marketplace pins; another version is no longer served. */
function pluginReply(request: Incoming, pkg: InstallArtifacts['plugin'], file: string): Reply {
  if (file !== `${pkg.version}.zip`) {
    throw new AppError('NOT_FOUND', `this plugin version is no longer served: the current one is ${pkg.version}; update the marketplace`, {
      version: pkg.version,
    });
  }
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(pkg.zip), {
    headers: {
      'content-type': 'application/zip',
      'content-length': String(pkg.zip.length),
      'content-disposition': `attachment; filename="${pkg.name}-${pkg.version}.zip"`,
      // A version names exactly these bytes.
      'cache-control': 'private, max-age=3600',
    },
  });
}

/** One address of a deployment's: where `<id>[/<key>]/` leads, `rest` the segments after it. */
interface DeploymentAddress {
  deploymentId: string;
  key: string | null;
  rest: string[];
  /** The route label of a tail of this address (`:key`, never the key). */
  label(tail: string): string;
}

/** `.well-known/agent-skills/index.json` and `.well-known/agent-skills/<name>/SKILL.md`; null for another address. */
async function skillsRoute(ctx: RouteContext, request: Incoming, scope: RequestScope, address: DeploymentAddress): Promise<Reply | null> {
  const { deploymentId, key, rest } = address;
  if (rest[0] !== '.well-known' || rest[1] !== 'agent-skills') return null;
  const tail = rest.slice(2);
  if (tail.length === 1 && tail[0] === 'index.json') {
    scope.route = address.label('.well-known/agent-skills/index.json');
    getOnly(request);
    return jsonReply((await artifactsOf(ctx, await entryOf(ctx, scope, deploymentId, key))).skillsIndex);
  }
  if (tail.length === 2 && tail[1] === 'SKILL.md') {
    scope.route = address.label('.well-known/agent-skills/:name/SKILL.md');
    getOnly(request);
    const { skills } = await artifactsOf(ctx, await entryOf(ctx, scope, deploymentId, key));
    const skill = skills.find((s) => skillPathOf(s.name) === tail.join('/'));
    // The name is a segment of the address, which may be a key: it is not repeated.
    if (!skill) throw new AppError('NOT_FOUND', 'this deployment serves no skill by that name: its skills are listed in index.json', {});
    return textResponse(skill.text, { headers: { 'content-type': 'text/markdown; charset=utf-8', 'cache-control': NO_STORE } });
  }
  return null;
}

/** The addresses of one deployment: its marketplace, its plugin archive, its skills. */
async function deploymentRoute(ctx: RouteContext, request: Incoming, scope: RequestScope, address: DeploymentAddress): Promise<Reply> {
  const { deploymentId, key, rest } = address;
  if (rest.join('/') === 'marketplace.json') {
    scope.route = address.label('marketplace.json');
    getOnly(request);
    const entry = await entryOf(ctx, scope, deploymentId, key);
    return jsonReply(deploymentMarketplaceOf(entry.target, (await artifactsOf(ctx, entry)).plugin));
  }
  if (rest.length === 2 && rest[0] === 'plugin' && rest[1]!.endsWith('.zip')) {
    scope.route = address.label('plugin/:version.zip');
    getOnly(request);
    return pluginReply(request, (await artifactsOf(ctx, await entryOf(ctx, scope, deploymentId, key))).plugin, rest[1]!);
  }
  const skills = await skillsRoute(ctx, request, scope, address);
  if (skills) return skills;
  throw noRoute();
}

/** Every install address: `user/<key>/…`, or `<id>[/<key>]/…`. */
async function route(ctx: RouteContext, request: Incoming, url: URL, scope: RequestScope): Promise<Reply> {
  const parts = url.pathname.slice(INSTALL_PREFIX.length).split('/');
  scope.route = `${request.method} /v1/install/*`;
  let first: string;
  try {
    first = decodeURIComponent(parts[0] ?? '');
  } catch {
    throw noRoute();
  }
  if (first === 'user') return userRoute(ctx, request, scope, parts);
  // A key where the deployment id belongs (the id left out): no deployment is looked up by it.
  if (!first || looksLikeApiKey(first)) throw noRoute();
  let rest = parts.slice(1);
  let key: string | null = null;
  if (rest[0] && looksLikeApiKey(rest[0])) {
    key = rest[0];
    rest = rest.slice(1);
  }
  const keyLabel = key ? '/:key' : '';
  const label = (tail: string) => `${request.method} /v1/install/:deploymentId${keyLabel}/${tail}`;
  return deploymentRoute(ctx, request, scope, { deploymentId: first, key, rest, label });
}

export function createInstallRoutes(deps: {
  services: Services;
  /** Told of every artefact lookup (metrics). */
  onArtifactLookup?: (outcome: ArtifactOutcome) => void;
}) {
  const ctx: RouteContext = { install: deps.services.install, artifacts: createArtifactCache({ onLookup: deps.onArtifactLookup }) };
  return {
    /** Every install address; no error it answers repeats a segment of the address that may be a key. */
    handle: (request: Incoming, url: URL, scope: RequestScope): Promise<Reply> =>
      route(ctx, request, url, scope).catch((error: unknown) => {
        throw withoutAddressSegments(error, url.pathname);
      }),
  };
}
