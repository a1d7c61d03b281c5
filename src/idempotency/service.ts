import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { AppError } from '../errors.js';
import type { ServiceDeps } from '../service-deps.js';
import { withClaimedKey } from './within-create.js';

/**
 * Idempotent creates (docs/concurrency.md, "Idempotency-Key"): Stripe's contract. The first request
 * with a key claims it; a repeat by the same user with the same key and the same request gets the
 * first answer (status and body) for 24 hours; the same key with another request is refused; a
 * repeat while the first is still running is 409. Keys live in the database, so every instance
 * sees them.
 *
 * Only a successful answer is kept. A refused or failed first request (its transaction rolled back)
 * frees the key, so the client's retry runs again. A create whose transaction committed marks the
 * key inside that transaction (within-create.ts), so a key is never freed after its resource exists.
 */

/** How long a key keeps its answer. */
const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
/**
 * A claim whose request has been running this long is taken to have died with its instance (every
 * request is bounded far below it), and a repeat takes the key over.
 */
const IN_FLIGHT_LEASE_MS = 5 * 60 * 1000;
/** Expired keys removed by each claim (the sweep stays a small statement whatever the backlog). */
const SWEEP_BATCH = 100;
/** Printable ASCII, as Stripe and the IETF draft accept (a UUID is the usual choice). */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
const HEADER = 'Idempotency-Key';

/** The answer a claim ends with, as the face sent it. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyClaim =
  | { kind: 'replay'; answer: StoredAnswer }
  /**
   * The first request's create committed but its answer was never kept (its acknowledgement was
   * lost, or the service stopped before keeping it): `location` names what it created.
   */
  | { kind: 'committed'; location: string }
  | {
      kind: 'claimed';
      /** Runs the create: its transaction marks the key `committed` as it commits (within-create.ts). */
      run<T>(create: () => Promise<T>): Promise<T>;
      /** Keeps the answer for repeats. */
      finish(answer: StoredAnswer): Promise<void>;
      /** Frees the key: the request did not create anything. */
      release(): Promise<void>;
    };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * The answer is sealed (AES-256-GCM) with a key derived from the Idempotency-Key, which is stored
 * only as a hash: an API key's secret in a create's answer is not readable from the database alone.
 */
function sealingKey(userId: string, key: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key, userId, 'workflow-service idempotent answer', 32));
}

function seal(userId: string, key: string, answer: StoredAnswer): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(userId, key), iv);
  const text = Buffer.concat([cipher.update(JSON.stringify({ headers: answer.headers, body: answer.body }), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), text]).toString('base64');
}

function unseal(userId: string, key: string, status: number, sealed: string): StoredAnswer {
  const bytes = Buffer.from(sealed, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(userId, key), bytes.subarray(0, 12));
  decipher.setAuthTag(bytes.subarray(12, 28));
  const text = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString('utf8');
  const { headers, body } = JSON.parse(text) as { headers: Record<string, string>; body: string };
  return { status, headers, body };
}

export function createIdempotencyService({ db, clock }: ServiceDeps) {
  const prisma = db.prisma;

  /**
   * Claims `key` for `userId`'s request (`request`: its method, path and body, compared by hash),
   * or answers what a repeat gets: the first answer, or a refusal.
   */
  async function claim(input: { userId: string; key: string; request: string }): Promise<IdempotencyClaim> {
    const { userId, key } = input;
    if (!KEY_PATTERN.test(key))
      throw new AppError(
        'VALIDATION_ERROR',
        `${HEADER} must be 1 to 255 printable ASCII characters without spaces (a random UUID is best)`,
        { field: HEADER },
      );
    const keyHash = sha256(key);
    const requestHash = sha256(input.request);
    const now = clock.now();
    const expired = new Date(now.getTime() - IDEMPOTENCY_WINDOW_MS);
    await prisma.$executeRaw`DELETE FROM idempotency_keys WHERE (user_id, key_hash) IN (
      SELECT user_id, key_hash FROM idempotency_keys WHERE created_at < ${expired} ORDER BY created_at LIMIT ${SWEEP_BATCH})`;
    const where = { userId, keyHash };
    const claimed = (): IdempotencyClaim => ({
      kind: 'claimed',
      run: (create) => withClaimedKey({ userId, keyHash }, create),
      async finish(answer) {
        await prisma.idempotencyKey.updateMany({
          where,
          data: { state: 'done', status: answer.status, answer: seal(userId, key, answer) },
        });
      },
      async release() {
        await prisma.idempotencyKey.deleteMany({ where: { ...where, state: 'in_flight' } });
      },
    });
    // An expired key the sweep has not reached yet is as good as absent.
    await prisma.idempotencyKey.deleteMany({ where: { ...where, createdAt: { lt: expired } } });
    const { count } = await prisma.idempotencyKey.createMany({
      data: [{ userId, keyHash, requestHash, state: 'in_flight', createdAt: now }],
      skipDuplicates: true,
    });
    if (count === 1) return claimed();
    const existing = await prisma.idempotencyKey.findUnique({ where: { userId_keyHash: where } });
    // Released between the insert and this read: the caller's retry will claim it.
    if (!existing) throw inFlight();
    if (existing.requestHash !== requestHash)
      throw new AppError(
        'VALIDATION_ERROR',
        `this ${HEADER} was already used for another request (another route or body) in the last 24 hours; use a new key for a new request`,
        { field: HEADER, reason: 'idempotency_key_reused' },
      );
    if (existing.state === 'done' && existing.status !== null && existing.answer)
      return { kind: 'replay', answer: unseal(userId, key, existing.status, existing.answer) };
    if (existing.state === 'committed' && existing.location) return { kind: 'committed', location: existing.location };
    if (existing.createdAt.getTime() < now.getTime() - IN_FLIGHT_LEASE_MS) {
      const taken = await prisma.idempotencyKey.updateMany({
        where: { ...where, state: 'in_flight', createdAt: existing.createdAt },
        data: { createdAt: now },
      });
      if (taken.count === 1) return claimed();
    }
    throw inFlight();
  }

  return { claim };
}

function inFlight(): AppError {
  return new AppError(
    'CONFLICT',
    `a request with this ${HEADER} is still running; wait for its answer, or send this one again in a moment to get it`,
    { reason: 'idempotency_key_in_flight' },
    { 'Retry-After': '1' },
  );
}
