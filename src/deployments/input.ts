import { AppError, validationError, type FieldProblem } from '../errors.js';
import { checkLength, cleanName } from '../text.js';
import { DESCRIPTION_MAX } from './types.js';

/** The checks of a deployment's own fields, as created or updated. */

export function checkName(raw: string): string {
  const problems: FieldProblem[] = [];
  const name = cleanName(raw, problems);
  if (problems.length) throw validationError(problems);
  return name;
}

export function checkDescription(description: string | null | undefined): string | null | undefined {
  if (description === null || description === undefined) return description;
  const problems: FieldProblem[] = [];
  checkLength(description, DESCRIPTION_MAX, 'description', problems);
  if (problems.length) throw validationError(problems);
  return description;
}

/** An update's field sent as null where null cannot be stored. */
export function notNull(field: string): AppError {
  return new AppError('VALIDATION_ERROR', `${field} cannot be null; leave it out to keep the current value`, {
    fields: [{ field, message: `${field} cannot be null` }],
  });
}

/** A team id as sent: a non-empty string of sane length, or null/undefined (no team). */
export function checkTeamId(teamId: unknown): string | null | undefined {
  if (teamId === null || teamId === undefined) return teamId;
  if (typeof teamId !== 'string' || teamId.length === 0 || teamId.length > 100) {
    throw validationError([{ field: 'teamId', message: 'teamId must be the id of a team you are in, or null' }]);
  }
  return teamId;
}
