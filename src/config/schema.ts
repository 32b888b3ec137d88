/**
 * The gateway configuration schema. Flag parsing produces a raw object; this schema types it
 * and checks every single-field range. Cross-field rules live in `validate.ts`.
 */
import { PD_WEIGHT_MODES } from '../routing/router-weights.js';
import { z } from 'zod';
import { ASSIGNMENT_MODES, POLICY_NAMES } from '../policies/names.js';
import { LOG_LEVELS } from './gateway-flags.js';

const port = z.number().int().min(0).max(65535);
const positiveInt = z.number().int().min(1);
const nonNegativeInt = z.number().int().min(0);

const workerUrl = z.string().refine((s) => {
  try {
    const u = new URL(s);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an http:// or https:// URL');

const modelAlias = z.string().regex(/^[^=]+=[^=]+$/, 'must look like alias=canonical');

export const gatewayConfigSchema = z.object({
  host: z.string().min(1),
  port,
  workerUrls: z.array(workerUrl),
  pdDisaggregation: z.boolean(),
  enableIgw: z.boolean(),
  pdWeightMode: z.enum(PD_WEIGHT_MODES),
  prefill: z.array(z.object({ url: workerUrl, bootstrapPort: z.number().int().min(1).max(65535).nullable() })),
  decode: z.array(workerUrl),
  prefillPolicy: z.enum(POLICY_NAMES).optional(),
  prefillMaxInflightRequestsPerWorker: z.number().int(),
  prefillQueueSize: nonNegativeInt.optional(),
  prefillQueueTimeoutSecs: positiveInt.optional(),
  pdAdmissionWaitSecs: nonNegativeInt,
  disablePdDecodeAdmission: z.boolean(),
  decodePolicy: z.enum(POLICY_NAMES).optional(),
  policy: z.enum(POLICY_NAMES),
  cacheThreshold: z.number().min(0).max(1),
  balanceAbsThreshold: nonNegativeInt,
  balanceRelThreshold: z.number().min(1),
  balanceTokenUsageThreshold: z.number().min(0).max(1),
  overloadTokenUsageThreshold: z.number().min(0).max(1),
  evictionIntervalSecs: positiveInt,
  maxTreeSize: positiveInt,
  prefixTokenCount: positiveInt,
  prefixHashLoadFactor: z.number().min(1),
  prefixHashBalanceAbsThreshold: nonNegativeInt,
  leastLoadKvPressureWeight: z.number().min(0),
  leastLoadDefaultThroughput: z.number().positive(),
  leastLoadMeanPrefillTokens: positiveInt,
  leastLoadMaxWaitingRequests: nonNegativeInt,
  maxIdleSecs: positiveInt,
  assignmentMode: z.enum(ASSIGNMENT_MODES).optional(),
  routingKeyOverride: z.boolean(),
  routingKeyHeaders: z.array(z.string().min(1)).min(1),
  dpAware: z.boolean(),
  retryMaxRetries: z.number().int().min(0),
  retryInitialBackoffMs: nonNegativeInt,
  retryMaxBackoffMs: nonNegativeInt,
  retryBackoffMultiplier: z.number().min(1),
  retryJitterFactor: z.number().min(0).max(1),
  disableRetries: z.boolean(),
  cbFailureThreshold: positiveInt,
  cbSuccessThreshold: positiveInt,
  cbTimeoutDurationSecs: nonNegativeInt,
  cbWindowDurationSecs: positiveInt,
  disableCircuitBreaker: z.boolean(),
  loadMonitorInterval: positiveInt,
  disableLoadMonitoring: z.boolean(),
  engineMetrics: z.boolean(),
  workerOverloadProtection: z.boolean(),
  workerOverloadWaitingRequests: positiveInt.optional(),
  workerOverloadTokenUsage: z.number().gt(0).max(1).optional(),
  maxConcurrentRequests: z.number().int().min(-1),
  queueSize: nonNegativeInt,
  queueTimeoutSecs: positiveInt,
  rateLimitTokensPerSecond: z.number().positive().optional(),
  apiKey: z.string().min(1).optional(),
  maxPayloadSize: positiveInt,
  requestTimeoutSecs: positiveInt,
  upstreamPoolIdleTimeoutSecs: positiveInt,
  shutdownGracePeriodSecs: nonNegativeInt,
  requestIdHeaders: z.array(z.string().min(1)),
  modelAlias: z.array(modelAlias),
  logLevel: z.enum(LOG_LEVELS),
  logJson: z.boolean(),
  prometheusHost: z.string().min(1),
  prometheusPort: port,
  healthCheckIntervalSecs: positiveInt,
  healthCheckTimeoutSecs: positiveInt,
  healthCheckEndpoint: z.string().startsWith('/'),
  healthFailureThreshold: positiveInt,
  healthSuccessThreshold: positiveInt,
  disableHealthCheck: z.boolean(),
  removeUnhealthyWorkers: z.boolean(),
  drainSettleSecs: nonNegativeInt,
  workerStartupTimeoutSecs: positiveInt,
  workerStartupDelay: nonNegativeInt,
  workerStartupCheckInterval: positiveInt,
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
