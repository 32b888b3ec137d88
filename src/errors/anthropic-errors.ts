/**
 * Gateway errors in Anthropic's shape, for the Messages routes: `{"type": "error", "error":
 * {"type", "message"}}`, the error `type` chosen by status as Anthropic's API names its classes,
 * so the Anthropic SDKs raise the matching error class. The stable code stays in the
 * `X-SMG-Error-Code` header. SMG answers these routes with its OpenAI-style body, which the
 * Anthropic SDKs cannot read (docs/compat.md).
 */
import type { GatewayError } from './gateway-error.js';

/** Anthropic's error type for an HTTP status (docs.anthropic.com, "Errors"). */
export function anthropicErrorType(status: number): string {
  switch (status) {
    case 400:
      return 'invalid_request_error';
    case 401:
      return 'authentication_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 408:
    case 504:
      return 'timeout_error';
    // Anthropic answers overload with 529; the gateway keeps its own 503 and this type.
    case 503:
    case 529:
      return 'overloaded_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

export function anthropicErrorBody(err: GatewayError): string {
  return JSON.stringify({
    type: 'error',
    error: { type: anthropicErrorType(err.status), message: err.message },
  });
}

/** The stream's `error` event, once its head is out. */
export function anthropicErrorEvent(err: GatewayError): string {
  return `event: error\ndata: ${anthropicErrorBody(err)}\n\n`;
}
