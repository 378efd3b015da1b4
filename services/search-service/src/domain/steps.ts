import type { ContractError, Result } from '@hub/contracts';
import { ServiceError, type ContractErrorLike } from '@hub/service-kit';

/** Answers the request with a contract error (status and exact text). */
export function fail(error: ContractErrorLike, cause?: unknown): never {
  throw new ServiceError(error, { cause });
}

/** The value of a contract check, or its error as the answer. */
export function check<T>(result: Result<T, ContractErrorLike>): T {
  if (!result.ok) fail(result.error);
  return result.value;
}

/**
 * One processing step of a use case: a failure that is not already a contract answer (the
 * database or the engine failed) becomes `error`, the 503 row of the spec for that step.
 */
export async function step<T>(error: ContractError, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof ServiceError) throw e;
    fail(error, e);
  }
}

/** For inTransaction: a failure of the transaction itself (start, commit) answers `error`. */
export function failsWith(error: ContractError): (cause: unknown) => Error {
  return (cause) => new ServiceError(error, { cause });
}
