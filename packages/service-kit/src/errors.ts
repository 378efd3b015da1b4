/**
 * The one error type of both services: an HTTP status and the text the contract gives
 * for it. Services throw it from anywhere; their single Express error handler renders it.
 */
export interface ContractErrorLike {
  readonly status: number;
  readonly text: string;
}

export class ServiceError extends Error {
  readonly status: number;
  readonly text: string;
  readonly headers: Record<string, string>;
  constructor(
    error: ContractErrorLike,
    options: { cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(error.text, { cause: options.cause });
    this.name = 'ServiceError';
    this.status = error.status;
    this.text = error.text;
    this.headers = options.headers ?? {};
  }
}

export function isServiceError(e: unknown): e is ServiceError {
  return e instanceof ServiceError;
}
