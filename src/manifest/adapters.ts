import { validationError, type FieldProblem } from '../errors.js';
import { isAdapter } from './adapter-list.js';
import { ADAPTERS, type Adapter } from './types.js';

export { isAdapter };

/**
 * The one check of a list of adapters (a deployment's, a library entry's): every item one of the
 * three, or a VALIDATION_ERROR naming each offending item as the faces' enum check does. The
 * result is a set ("a subset of the three adapter values", spec 2.4 and 2.5): each adapter once,
 * in the canonical order.
 */
export function adapterSet(list: readonly string[], field = 'enabledAdapters'): Adapter[] {
  const problems: FieldProblem[] = [];
  list.forEach((value, i) => {
    if (!isAdapter(value)) problems.push({ field: `${field}[${i}]`, message: `${field}[${i}] must be one of ${ADAPTERS.join(', ')}` });
  });
  if (problems.length) throw validationError(problems, { allowed: [...ADAPTERS] });
  return ADAPTERS.filter((a) => list.includes(a));
}
