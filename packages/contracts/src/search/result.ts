import type { ContractError } from './errors';

/**
 * The answer of every check of this package: a value, or the error to send (a contract row;
 * for the parameters beyond the spec, a row of SEARCH_HTTP_ERRORS).
 */
export type Result<T, E = ContractError> = { ok: true; value: T } | { ok: false; error: E };

export function success<T>(value: T): Result<T, never> {
  return { ok: true, value };
}

export function failure<T = never, E = ContractError>(error: E): Result<T, E> {
  return { ok: false, error };
}
