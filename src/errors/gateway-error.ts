import { statusOf, type ErrorCode } from './catalog.js';
import { RETRYABLE_STATUSES } from './retryable.js';

export interface GatewayErrorOptions {
  /** Extra response headers, e.g. Retry-After on sheds. */
  headers?: Record<string, string>;
  /**
   * Whether the retry executor may try again. Defaults to the status being retryable
   * (408/429/5xx); sheds set it false so a shed is answered at once (SMG's NonRetryable mark).
   */
  retryable?: boolean;
  /** Overrides the catalog status, for codes that carry an upstream's own status (PD legs). */
  status?: number;
}

/** An error the gateway answers itself. It is a value with a stable code, not a crash. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly retryable: boolean;

  constructor(code: ErrorCode, message: string, opts: GatewayErrorOptions = {}) {
    super(message);
    this.name = 'GatewayError';
    this.code = code;
    this.status = opts.status ?? statusOf(code);
    this.headers = opts.headers ?? {};
    this.retryable = opts.retryable ?? RETRYABLE_STATUSES.has(this.status);
  }
}
