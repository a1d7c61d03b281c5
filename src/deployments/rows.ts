import type { Statement } from '../db/index.js';

/** The deployments columns under Prisma's field names, so rows have the shape of Prisma's `Deployment`. */
const DEPLOYMENT_COLUMNS = `id, owner_id AS "ownerId", name, description, enabled_adapters AS "enabledAdapters",
  status::text AS status, allow_anonymous AS "allowAnonymous", last_connected_at AS "lastConnectedAt",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * A page of an owner's deployments, newest first: owner $1, then the optional status and the
 * cursor position (created_at, id), and the row count last. One statement per combination, so
 * each keeps a plan that uses the (owner_id, created_at, id) index.
 */
export function deploymentsOfOwner(withStatus: boolean, withCursor: boolean): Statement {
  return DEPLOYMENTS_OF_OWNER[Number(withStatus) * 2 + Number(withCursor)]!;
}

const DEPLOYMENTS_OF_OWNER: Statement[] = [false, true].flatMap((status) =>
  [false, true].map((cursor) => {
    const conditions = ['owner_id = $1'];
    let n = 1;
    if (status) conditions.push(`status = $${++n}::"DeploymentStatus"`);
    if (cursor) {
      const at = ++n;
      const id = ++n;
      conditions.push(`(created_at < $${at} OR (created_at = $${at} AND id < $${id}))`);
    }
    return {
      name: `deployments_of_owner${status ? '_status' : ''}${cursor ? '_after' : ''}`,
      text: `SELECT ${DEPLOYMENT_COLUMNS} FROM deployments WHERE ${conditions.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${n + 1}`,
    };
  }),
);
