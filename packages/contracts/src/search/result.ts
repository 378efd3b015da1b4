import type { ContractError } from './errors';

/** The answer of every check of this package: a value, or the contract error to send. */
export type Result<T> = { ok: true; value: T } | { ok: false; error: ContractError };

export function success<T>(value: T): Result<T> {
  return { ok: true, value };
}

export function failure<T = never>(error: ContractError): Result<T> {
  return { ok: false, error };
}
