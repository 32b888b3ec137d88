/**
 * The HTTP-ingress metrics of each request (`smg_http_requests_total`,
 * `smg_http_request_duration_seconds`, `smg_http_responses_total`) through label children made
 * once per label set and kept: every label is bounded (route labels come from the route table,
 * methods from the fixed set Node's HTTP parser accepts, statuses are three digits, error codes
 * come from the error catalog), so the set of children stays small.
 */
import type { GatewayMetrics } from '../observability/metrics.js';
import {
  counterChild,
  histogramChild,
  type CounterChild,
  type HistogramChild,
} from '../observability/label-cache.js';

/** The children for one method on one route label. */
export interface RequestSeries {
  readonly requests: CounterChild;
  readonly duration: HistogramChild;
  /** `smg_http_responses_total` of the route label (it has no `method` label). */
  readonly responses: ResponseSeries;
}

/** `smg_http_responses_total` children of one route label, by status and error code. */
export class ResponseSeries {
  readonly #byStatus = new Map<number, Map<string, CounterChild>>();

  constructor(
    private readonly metrics: GatewayMetrics,
    private readonly path: string,
  ) {}

  /** The child for a response with this status and gateway error code ('' when none). */
  child(status: number, errorCode: string): CounterChild {
    let byCode = this.#byStatus.get(status);
    if (byCode === undefined) {
      byCode = new Map();
      this.#byStatus.set(status, byCode);
    }
    let child = byCode.get(errorCode);
    if (child === undefined) {
      child = counterChild(this.metrics.httpResponses, {
        path: this.path,
        status_code: String(status),
        error_code: errorCode,
      });
      byCode.set(errorCode, child);
    }
    return child;
  }
}

export class HttpIngressMetrics {
  readonly #byLabel = new Map<string, Map<string, RequestSeries>>();
  readonly #responses = new Map<string, ResponseSeries>();

  constructor(private readonly metrics: GatewayMetrics) {}

  /** The children for requests with `method` to the route labelled `label`. */
  series(method: string, label: string): RequestSeries {
    let byMethod = this.#byLabel.get(label);
    if (byMethod === undefined) {
      byMethod = new Map();
      this.#byLabel.set(label, byMethod);
    }
    let series = byMethod.get(method);
    if (series === undefined) {
      const labels = { method, path: label };
      series = {
        requests: counterChild(this.metrics.httpRequests, labels),
        duration: histogramChild(this.metrics.httpDuration, labels),
        responses: this.#responsesOf(label),
      };
      byMethod.set(method, series);
    }
    return series;
  }

  #responsesOf(label: string): ResponseSeries {
    let responses = this.#responses.get(label);
    if (responses === undefined) {
      responses = new ResponseSeries(this.metrics, label);
      this.#responses.set(label, responses);
    }
    return responses;
  }
}
