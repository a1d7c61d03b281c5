import { AppError, type ErrorDetails } from '../errors.js';
import type { PageInfo } from '../pagination.js';
import { textResponse, type TextReply } from '../http/text-response.js';

/**
 * The response envelope of spec 2.1, made here and nowhere else.
 */
function successBody(data: unknown, pagination?: PageInfo): string {
  return JSON.stringify(pagination ? { success: true, data, pagination } : { success: true, data });
}

export function errorBody(code: string, message: string, details: ErrorDetails = {}): string {
  return JSON.stringify({ success: false, error: { code, message, details } });
}

const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonResponse(body: string, status: number, headers: Record<string, string> = {}): TextReply {
  return textResponse(body, { status, headers: { 'content-type': JSON_TYPE, ...headers } });
}

export function successResponse(data: unknown, status = 200, pagination?: PageInfo): TextReply {
  return jsonResponse(successBody(data, pagination), status);
}

export function errorResponse(error: AppError): TextReply {
  return jsonResponse(errorBody(error.code, error.message, error.details), error.status, error.headers);
}
