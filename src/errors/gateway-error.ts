import { statusOf, type ErrorCode } from './catalog.js';

/** An error the gateway answers itself. It is a value with a stable code, not a crash. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  /** Extra response headers, e.g. Retry-After on sheds. */
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'GatewayError';
    this.code = code;
    this.status = statusOf(code);
    this.headers = headers;
  }
}

export function isGatewayError(err: unknown): err is GatewayError {
  return err instanceof GatewayError;
}
