/**
 * The service's own rules, imported from its modules (never copied): length limits counted in
 * characters (code points) as the service counts them.
 */
import { characterCount, TEXT_LIMITS } from '../../src/text';

export { characterCount, TEXT_LIMITS };
export const REVIEW_TEXT = TEXT_LIMITS.reviewText;
export const REPORT_REASON_MAX = TEXT_LIMITS.moderationReason;

/** Why a text field cannot be saved yet, or null: empty, or over its limit in characters. */
export function lengthProblem(label: string, text: string, max: number, required = false): string | null {
  const count = characterCount(text.trim());
  if (required && count === 0) return `${label} is required.`;
  if (count > max) return `${label} is ${count} characters; at most ${max} are allowed.`;
  return null;
}
