import type { ApiKey, Prisma } from '@prisma/client';
import { newId } from '../clock.js';
import type { ApiKeyCredential, CredentialUse, Viewer } from '../auth/viewer.js';
import { AppError, validationError, notFound, type FieldProblem } from '../errors.js';
import { enforceQuota } from '../limits/quota.js';
import { pageLimit, timeCursorOf, timeCursorPosition, toPage, type Page } from '../pagination.js';
import { withContext, type ServiceDeps } from '../service-deps.js';
import { cleanName, NAME_MAX } from '../text.js';
import { hashApiKeySecret, isWellFormedApiKey, newApiKeySecret, shownPrefixOf } from './secret.js';
import { recordCreated } from '../idempotency/within-create.js';
import { recordAudit } from '../teams/audit.js';

const API_KEY_SCOPES = ['mcp', 'api'] as const;
type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/** Limits of a key's own fields (docs/decisions.md, "API keys"). */
const API_KEY_LIMITS = { name: NAME_MAX, deployments: 100 } as const;

/** Seen by its owner: everything but the secret, which only the creation answer carries. */
export type ApiKeyView = Omit<ApiKey, 'secretHash' | 'userId'>;

interface CreateApiKeyInput {
  name: string;
  scope?: string | null;
  deploymentIds?: string[] | null;
  /** ISO 8601; absent or null: the key does not expire. */
  expiresAt?: string | null;
}

/** `lastUsedAt` is written at most this often per key, so a busy key does not write on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

function unauthorized(message: string, reason: string): AppError {
  return new AppError(
    'UNAUTHORIZED',
    message,
    { reason },
    { 'WWW-Authenticate': `Bearer error="invalid_token", error_description="${message}"` },
  );
}

function viewOf(key: ApiKey): ApiKeyView {
  const { secretHash: _hash, userId: _user, ...view } = key;
  return view;
}

/**
 * Refuses a request whose credential does not cover what it is used for: an `mcp` key outside tool
 * endpoints, a key limited to some deployments on another one's endpoint. ID tokens open everything
 * their user may.
 */
export function assertCredentialAllows(viewer: Viewer, use: CredentialUse): void {
  const credential = viewer.credential;
  if (!credential) return;
  // The user's install catalog takes any of the user's API keys and lists only what the key opens.
  if (use.face === 'catalog') return;
  if (credential.kind === 'oauth') {
    if (credential.deploymentId === null) {
      if (use.face === 'api') return;
      throw new AppError(
        'FORBIDDEN',
        "this access token of the command-line tool opens REST and GraphQL, not tool endpoints: connect the endpoint with an API key (wfctl install) or the client's own sign-in",
        { reason: 'oauth_token_scope' },
      );
    }
    if (use.face === 'api')
      throw new AppError(
        'FORBIDDEN',
        'this OAuth access token opens the tool endpoint of one deployment only, not REST or GraphQL: use an ID token or an API key of scope "api"',
        { reason: 'oauth_token_scope' },
      );
    if (use.deploymentId !== credential.deploymentId) {
      throw new AppError(
        'UNAUTHORIZED',
        `this access token was issued for the tool endpoint of deployment '${credential.deploymentId}', not this one: connect to this endpoint to get a token for it`,
        { reason: 'wrong_resource' },
      );
    }
    return;
  }
  if (use.face === 'api' && credential.scope !== 'api') {
    throw new AppError(
      'FORBIDDEN',
      'this API key has scope "mcp": it opens tool endpoints only; create a key with scope "api" for REST and GraphQL',
      { scope: credential.scope },
    );
  }
  if (use.face === 'mcp' && credential.deploymentIds.length > 0 && !credential.deploymentIds.includes(use.deploymentId)) {
    throw new AppError('FORBIDDEN', `this API key is limited to the tool endpoints of ${credential.deploymentIds.join(', ')}`, {
      deploymentIds: [...credential.deploymentIds],
    });
  }
}

/** `base`, or `base (2)`, `base (3)`… (shortened to fit NAME_MAX), the first that is not in `taken`. */
function unusedName(base: string, taken: Iterable<string>): string {
  const used = new Set(taken);
  if (!used.has(base)) return base;
  for (let n = 2; ; n++) {
    const suffix = ` (${n})`;
    const candidate = `${Array.from(base)
      .slice(0, NAME_MAX - suffix.length)
      .join('')
      .trimEnd()}${suffix}`;
    if (!used.has(candidate)) return candidate;
  }
}

/** What the operations are built from: the database and the clock. */
type ApiKeyContext = Pick<ServiceDeps, 'db' | 'clock'>;

async function cleanInput(ctx: ApiKeyContext, viewer: Viewer, input: CreateApiKeyInput) {
  const problems: FieldProblem[] = [];
  const name = cleanName(input.name, problems);
  const scope = input.scope ?? 'mcp';
  if (!(API_KEY_SCOPES as readonly string[]).includes(scope))
    problems.push({
      field: 'scope',
      message: `scope must be "mcp" (tool endpoints only) or "api" (REST, GraphQL and tool endpoints), got "${scope}"`,
    });
  const deploymentIds = [...new Set(input.deploymentIds ?? [])];
  if (deploymentIds.length > API_KEY_LIMITS.deployments)
    problems.push({ field: 'deploymentIds', message: `at most ${API_KEY_LIMITS.deployments} deployments may be named` });
  const teamIds = new Set<string>();
  if (deploymentIds.length && deploymentIds.length <= API_KEY_LIMITS.deployments) {
    const usable = await usableDeployments(ctx.db.prisma, viewer.userId, deploymentIds);
    const usableIds = new Set(usable.map((d) => d.id));
    for (const d of usable) if (d.teamId) teamIds.add(d.teamId);
    deploymentIds.forEach((id, i) => {
      if (!usableIds.has(id)) problems.push({ field: `deploymentIds[${i}]`, message: `deployment '${id}' is not one of yours` });
    });
  }
  let expiresAt: Date | null = null;
  if (input.expiresAt !== undefined && input.expiresAt !== null) {
    const parsed = new Date(input.expiresAt);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(input.expiresAt) || Number.isNaN(parsed.getTime()))
      problems.push({ field: 'expiresAt', message: 'expiresAt must be an ISO 8601 timestamp such as 2027-01-31T00:00:00Z' });
    else if (parsed.getTime() <= ctx.clock.now().getTime())
      problems.push({ field: 'expiresAt', message: 'expiresAt must be in the future' });
    else if (parsed.getUTCFullYear() > 9999) problems.push({ field: 'expiresAt', message: 'expiresAt must be before the year 10000' });
    else expiresAt = parsed;
  }
  if (problems.length) throw validationError(problems);
  return { name, scope: scope as ApiKeyScope, deploymentIds, expiresAt, teamIds: [...teamIds] };
}

/**
 * Of `deploymentIds`, those a key of `userId` may be limited to: their personal deployments and the
 * deployments of the teams they are in (docs/teams.md, "Team deployments"), with their teams.
 */
function usableDeployments(db: Prisma.TransactionClient, userId: string, deploymentIds: string[]) {
  return db.deployment.findMany({
    where: { id: { in: deploymentIds }, OR: [{ ownerId: userId, teamId: null }, { team: { members: { some: { userId } } } }] },
    select: { id: true, teamId: true },
  });
}

/**
 * The entries of a key made for (or revoked from) team deployments, one in the log of each of
 * their teams, beside the one in the person's own log.
 */
async function recordKeyEvent(
  tx: Prisma.TransactionClient,
  at: Date,
  event: { action: 'api_key.created' | 'api_key.revoked'; userId: string; keyId: string; teamIds: string[]; deploymentIds: string[] },
): Promise<void> {
  const { action, userId, keyId } = event;
  await recordAudit(tx, at, { userId, action, actorUserId: userId, targetType: 'api_key', targetId: keyId });
  for (const teamId of event.teamIds) {
    const details = { deploymentIds: event.deploymentIds };
    await recordAudit(tx, at, { teamId, action, actorUserId: userId, targetType: 'api_key', targetId: keyId, details });
  }
}

/**
 * Creates a key; the answer is the only place its secret ever appears. `uniqueName`: the name is
 * one the service chose (the install page, IDE setup, `wfctl install`), so it gets ` (2)`, ` (3)`…
 * when one of the user's keys has it already: two keys never share an automatic name. A name the
 * user typed is kept as typed.
 */
async function createApiKey(
  ctx: ApiKeyContext,
  viewer: Viewer,
  input: CreateApiKeyInput,
  options: { uniqueName?: boolean } = {},
): Promise<ApiKeyView & { secret: string }> {
  const clean = await cleanInput(ctx, viewer, input);
  const secret = newApiKeySecret();
  const key = await ctx.db.prisma.$transaction(async (tx) => {
    await enforceQuota(tx, viewer.userId, 'apiKeys', 1, ctx.clock.now());
    const id = newId('key');
    await recordCreated(tx, `/api-keys/${id}`);
    await recordKeyEvent(tx, ctx.clock.now(), {
      action: 'api_key.created',
      userId: viewer.userId,
      keyId: id,
      teamIds: clean.teamIds,
      deploymentIds: clean.deploymentIds,
    });
    const name = options.uniqueName
      ? unusedName(
          clean.name,
          (await tx.apiKey.findMany({ where: { userId: viewer.userId }, select: { name: true } })).map((k) => k.name),
        )
      : clean.name;
    return tx.apiKey.create({
      data: {
        id,
        userId: viewer.userId,
        name,
        scope: clean.scope,
        deploymentIds: clean.deploymentIds,
        prefix: shownPrefixOf(secret),
        secretHash: hashApiKeySecret(secret),
        createdAt: ctx.clock.now(),
        expiresAt: clean.expiresAt,
      },
    });
  });
  return { ...viewOf(key), secret };
}

async function listApiKeys(
  ctx: ApiKeyContext,
  viewer: Viewer,
  input: { limit?: number | null; cursor?: string | null },
): Promise<Page<ApiKeyView>> {
  const limit = pageLimit(input.limit);
  const where: Prisma.ApiKeyWhereInput = { userId: viewer.userId };
  if (input.cursor) {
    const { at, id } = timeCursorPosition(input.cursor, 'api-keys');
    where.OR = [{ createdAt: { lt: at } }, { createdAt: at, id: { lt: id } }];
  }
  const rows = await ctx.db.prisma.apiKey.findMany({ where, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take: limit + 1 });
  return toPage(rows, limit, 'api-keys', (k) => timeCursorOf(k.createdAt, k.id), viewOf);
}

/** Revokes (deletes) a key of the caller's; the next request with it is refused on every instance. */
async function revokeApiKey(ctx: ApiKeyContext, viewer: Viewer, keyId: string): Promise<{ keyId: string; deleted: true }> {
  await ctx.db.prisma.$transaction(async (tx) => {
    const key = await tx.apiKey.findFirst({ where: { id: keyId, userId: viewer.userId }, select: { deploymentIds: true } });
    const { count } = await tx.apiKey.deleteMany({ where: { id: keyId, userId: viewer.userId } });
    if (!key || count === 0) throw notFound('API key', keyId);
    // The teams whose deployments the key was made for, as far as they still exist.
    const teams = key.deploymentIds.length
      ? await tx.deployment.findMany({ where: { id: { in: key.deploymentIds }, teamId: { not: null } }, select: { teamId: true } })
      : [];
    const teamIds = [...new Set(teams.map((d) => d.teamId!))];
    await recordKeyEvent(tx, ctx.clock.now(), {
      action: 'api_key.revoked',
      userId: viewer.userId,
      keyId,
      teamIds,
      deploymentIds: key.deploymentIds,
    });
  });
  return { keyId, deleted: true };
}

/**
 * The viewer behind a presented key, read from the database on every request (an index lookup),
 * so a revocation holds on the next request everywhere. Unknown, revoked, expired and malformed
 * keys are UNAUTHORIZED.
 */
async function authenticateApiKey(ctx: ApiKeyContext, secret: string): Promise<Viewer> {
  if (!isWellFormedApiKey(secret)) throw unauthorized('malformed API key: expected wfk_ followed by 40 letters and digits', 'malformed');
  const key = await ctx.db.prisma.apiKey.findUnique({
    where: { secretHash: hashApiKeySecret(secret) },
    include: { user: { select: { email: true } } },
  });
  if (!key) throw unauthorized('unknown or revoked API key', 'revoked');
  const now = ctx.clock.now();
  if (key.expiresAt && key.expiresAt.getTime() <= now.getTime())
    throw unauthorized(`this API key expired at ${key.expiresAt.toISOString()}`, 'expired');
  if (!key.lastUsedAt || now.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    await ctx.db.prisma.apiKey.updateMany({ where: { id: key.id }, data: { lastUsedAt: now } });
  }
  const credential: ApiKeyCredential = {
    kind: 'api_key',
    keyId: key.id,
    scope: key.scope as ApiKeyScope,
    deploymentIds: key.deploymentIds,
  };
  return { userId: key.userId, email: key.user.email, credential };
}

export function createApiKeyService({ db, clock }: ServiceDeps) {
  return withContext({ db, clock }, { createApiKey, listApiKeys, revokeApiKey, authenticateApiKey });
}
