/**
 * The gateway configuration schema. Flag parsing produces a raw object; this schema types it
 * and checks every single-field range. Cross-field rules live in `validate.ts`.
 */
import { PD_WEIGHT_MODES } from '../routing/router-weights.js';
import { z } from 'zod';
import { ASSIGNMENT_MODES, POLICY_NAMES } from '../policies/names.js';
import { LOG_LEVELS } from './gateway-flags.js';
import { parseControlPlaneKey } from '../server/auth.js';
import { MAX_TIMER_MS, MAX_TIMER_SECS, timerLimitMessage } from '../util/timer-limit.js';
import { parseCidr } from '../workers/address-rules.js';
import { workerUrlSchema } from '../workers/worker-url.js';

const port = z.number().int().min(0).max(65535);
const positiveInt = z.number().int().min(1);
const nonNegativeInt = z.number().int().min(0);
/** A whole number of seconds or milliseconds that becomes a timer: bounded by what a timer holds. */
const secs = (min: number) => z.number().int().min(min).max(MAX_TIMER_SECS, timerLimitMessage('s'));
const millis = (min: number) => z.number().int().min(min).max(MAX_TIMER_MS, timerLimitMessage('ms'));

const cidr = z.string().refine((s) => parseCidr(s) !== undefined, 'must be an IPv4 or IPv6 CIDR such as 10.0.0.0/8 or fd00::/8');

/** `id:name:role:key`, parsed once here; the message never repeats the entry (it holds a secret). */
const controlPlaneApiKey = z.string().transform((entry, ctx) => {
  const parsed = parseControlPlaneKey(entry);
  if (parsed) return parsed;
  ctx.addIssue({ code: 'custom', message: 'must look like id:name:role:key with role admin or user, and a non-empty id and key' });
  return z.NEVER;
});

const modelAlias = z.string().regex(/^[^=]+=[^=]+$/, 'must look like alias=canonical');

export const gatewayConfigSchema = z.object({
  host: z.string().min(1),
  port,
  workerUrls: z.array(workerUrlSchema),
  workerAllowCidr: z.array(cidr),
  pdDisaggregation: z.boolean(),
  enableIgw: z.boolean(),
  pdWeightMode: z.enum(PD_WEIGHT_MODES),
  prefill: z.array(z.object({ url: workerUrlSchema, bootstrapPort: z.number().int().min(1).max(65535).nullable() })),
  decode: z.array(workerUrlSchema),
  prefillPolicy: z.enum(POLICY_NAMES).optional(),
  prefillMaxInflightRequestsPerWorker: z.number().int(),
  prefillQueueSize: nonNegativeInt.optional(),
  prefillQueueTimeoutSecs: secs(1).optional(),
  pdAdmissionWaitSecs: secs(0),
  disablePdDecodeAdmission: z.boolean(),
  decodePolicy: z.enum(POLICY_NAMES).optional(),
  policy: z.enum(POLICY_NAMES),
  cacheThreshold: z.number().min(0).max(1),
  balanceAbsThreshold: nonNegativeInt,
  balanceRelThreshold: z.number().min(1),
  balanceTokenUsageThreshold: z.number().min(0).max(1),
  overloadTokenUsageThreshold: z.number().min(0).max(1),
  evictionIntervalSecs: secs(1),
  maxTreeSize: positiveInt,
  prefixTokenCount: positiveInt,
  prefixHashLoadFactor: z.number().min(1),
  prefixHashBalanceAbsThreshold: nonNegativeInt,
  leastLoadKvPressureWeight: z.number().min(0),
  leastLoadDefaultThroughput: z.number().positive(),
  leastLoadMeanPrefillTokens: positiveInt,
  leastLoadMaxWaitingRequests: nonNegativeInt,
  maxIdleSecs: secs(1),
  assignmentMode: z.enum(ASSIGNMENT_MODES).optional(),
  routingKeyOverride: z.boolean(),
  routingKeyHeaders: z.array(z.string().min(1)).min(1),
  dpAware: z.boolean(),
  retryMaxRetries: z.number().int().min(0),
  retryInitialBackoffMs: millis(0),
  retryMaxBackoffMs: millis(0),
  retryBackoffMultiplier: z.number().min(1),
  retryJitterFactor: z.number().min(0).max(1),
  disableRetries: z.boolean(),
  cbFailureThreshold: positiveInt,
  cbSuccessThreshold: positiveInt,
  cbTimeoutDurationSecs: secs(0),
  cbWindowDurationSecs: secs(1),
  disableCircuitBreaker: z.boolean(),
  loadMonitorInterval: secs(1),
  disableLoadMonitoring: z.boolean(),
  engineMetrics: z.boolean(),
  workerOverloadProtection: z.boolean(),
  workerOverloadWaitingRequests: positiveInt.optional(),
  workerOverloadTokenUsage: z.number().gt(0).max(1).optional(),
  maxConcurrentRequests: z.number().int().min(-1),
  queueSize: nonNegativeInt,
  queueTimeoutSecs: secs(1),
  // The refill wake-up waits 1/rate seconds for a token, so the rate is bounded like a duration.
  rateLimitTokensPerSecond: z
    .number()
    .min(1 / MAX_TIMER_SECS, `must be at least 1/${MAX_TIMER_SECS} (one token per timer span, about 24.8 days)`)
    .optional(),
  apiKey: z.string().min(1).optional(),
  controlPlaneApiKeys: z.array(controlPlaneApiKey),
  maxPayloadSize: positiveInt,
  requestBodyTimeoutSecs: secs(1),
  requestTimeoutSecs: secs(1),
  upstreamPoolIdleTimeoutSecs: secs(1),
  shutdownGracePeriodSecs: secs(0),
  requestIdHeaders: z.array(z.string().min(1)),
  modelAlias: z.array(modelAlias),
  logLevel: z.enum(LOG_LEVELS),
  logJson: z.boolean(),
  prometheusHost: z.string().min(1),
  prometheusPort: port,
  healthCheckIntervalSecs: secs(1),
  healthCheckTimeoutSecs: secs(1),
  healthCheckEndpoint: z.string().startsWith('/'),
  healthFailureThreshold: positiveInt,
  healthSuccessThreshold: positiveInt,
  disableHealthCheck: z.boolean(),
  removeUnhealthyWorkers: z.boolean(),
  drainSettleSecs: secs(0),
  workerStartupTimeoutSecs: secs(1),
  workerStartupDelay: secs(0),
  workerStartupCheckInterval: secs(1),
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
