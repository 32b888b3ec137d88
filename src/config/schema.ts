/**
 * The gateway configuration schema. Flag parsing produces a raw object; this schema types it
 * and checks every single-field range. Cross-field rules live in `validate.ts`.
 */
import { z } from 'zod';
import { POLICY_NAMES } from '../policies/names.js';
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
  policy: z.enum(POLICY_NAMES),
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
