import { GraphQLError } from 'graphql';
import { translateDbError } from '../db/errors.js';
import { AppError } from '../errors.js';

/**
 * Turns whatever a resolver threw into an AppError. Known failures keep their code; anything
 * unexpected becomes INTERNAL_ERROR without internals (the caller logs the original).
 */
export function toAppError(error: unknown): { appError: AppError; unexpected: boolean } {
  let original: unknown = error;
  while (original instanceof GraphQLError && original.originalError) original = original.originalError;
  const known = translateDbError(original);
  if (known) return { appError: known, unexpected: false };
  return { appError: new AppError('INTERNAL_ERROR', 'an unexpected error occurred; it has been logged'), unexpected: true };
}
