/**
 * The gateway configuration schema. Flag parsing produces a raw object; this schema types it
 * and checks every single-field range. Cross-field rules live in `validate.ts`.
 *
 * Every default is in the flag table (`gateway-flags.ts`, `flags-*.ts`): `parseFlags` fills it in
 * and `--help` prints it, so it is written once. An optional field here is never a default: it
 * means off (no overload veto, no refill, no key, no probe listener) or inherited (a leg policy
 * is `--policy`'s, an assignment mode is the policy's own).
 */
import { PD_WEIGHT_MODES } from '../routing/router-weights.js';
import { z } from 'zod';
import { ASSIGNMENT_MODES, LEG_POLICY_NAMES, POLICY_NAMES } from '../policies/names.js';
import { LOG_LEVELS } from './gateway-flags.js';
import { parseControlPlaneKey } from './control-plane-key.js';
import { I32_MAX, I32_MIN } from '../util/rust-int-limits.js';
import { MAX_TIMER_MS, MAX_TIMER_SECS, timerLimitMessage } from '@switchyard/kit';
import { parseCidr } from '../workers/address-rules.js';
import { workerUrlSchema } from '../workers/worker-url.js';
import { modelIdSourceProblem } from '../discovery/kubernetes/model-id-source.js';
import { selectorEntryProblem } from '../discovery/kubernetes/selector.js';
import { corsOriginProblem } from './cors-origin.js';
import { HISTORY_BACKENDS } from './flags-history.js';

const port = z.number().int().min(0).max(65535);

/** A string the flag's own check accepts: the same rule when a config is built without the flag parser. */
const checked = (problem: (value: string) => string | undefined) =>
  z.string().superRefine((value, ctx) => {
    const broken = problem(value);
    if (broken !== undefined) ctx.addIssue({ code: 'custom', message: broken });
  });
const positiveInt = z.number().int().min(1);
const nonNegativeInt = z.number().int().min(0);
/** A whole number of seconds or milliseconds that becomes a timer: bounded by what a timer holds. */
const secs = (min: number) => z.number().int().min(min).max(MAX_TIMER_SECS, timerLimitMessage('s'));
const millis = (min: number) =>
  z.number().int().min(min).max(MAX_TIMER_MS, timerLimitMessage('ms'));

const cidr = z
  .string()
  .refine(
    (s) => parseCidr(s) !== undefined,
    'must be an IPv4 or IPv6 CIDR such as 10.0.0.0/8 or fd00::/8',
  );

/** `id:name:role:key`, parsed once here; the message never repeats the entry (it holds a secret). */
const controlPlaneApiKey = z.string().transform((entry, ctx) => {
  const parsed = parseControlPlaneKey(entry);
  if (parsed) return parsed;
  ctx.addIssue({
    code: 'custom',
    message: 'must look like id:name:role:key with role admin or user, and a non-empty id and key',
  });
  return z.NEVER;
});

/** SMG splits at the first `=`: `a=b=c` maps alias `a` to the model `b=c` (main.rs parse_model_alias). */
const modelAlias = z.string().regex(/^[^=]+=.+$/, 'must look like alias=canonical');

/** SMG types `--max-concurrent-requests` and `--rate-limit-tokens-per-second` as i32. */
const i32 = z.number().int().min(I32_MIN).max(I32_MAX);

/**
 * An RFC 9110 field name (token characters), as SMG's `HeaderName::try_from` requires; upper case
 * is accepted and lower-cased there, so it is here.
 */
const headerName = z
  .string()
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'must be a valid HTTP header name')
  .transform((name) => name.toLowerCase());

/** SMG joins the worker URL and the path as is; a missing `/` would glue the path to the port. */
const probePath = z.string().transform((path) => (path.startsWith('/') ? path : `/${path}`));

/**
 * The dashboard's path: leading slash added, trailing slashes dropped; not the root and not
 * `/metrics` (the listener's one other route), and nothing a URL would read as a query.
 */
const dashboardPath = z
  .string()
  .transform((path) => `/${path.replace(/^\/+|\/+$/g, '')}`)
  .refine((path) => path !== '/' && path !== '/metrics' && !path.startsWith('/metrics/'), {
    message: 'must be a path other than / and /metrics',
  })
  .refine((path) => /^[A-Za-z0-9/_.~-]+$/.test(path), {
    message: 'may hold only letters, digits, /, _, ., ~ and -',
  });

/** `redis://host:port[/db]` (or `rediss://`); the db, when given, a whole number. */
const redisUrl = z.string().refine((raw) => {
  try {
    const url = new URL(raw);
    const db = url.pathname.replace(/^\//, '');
    return (
      (url.protocol === 'redis:' || url.protocol === 'rediss:') &&
      url.hostname !== '' &&
      /^\d*$/.test(db)
    );
  } catch {
    return false;
  }
}, 'must be redis://host:port[/db]');

export const gatewayConfigSchema = z.object({
  host: z.string().min(1),
  port,
  workerUrls: z.array(workerUrlSchema),
  workerAllowCidr: z.array(cidr),
  pdDisaggregation: z.boolean(),
  enableIgw: z.boolean(),
  pdWeightMode: z.enum(PD_WEIGHT_MODES),
  prefill: z.array(
    z.object({
      url: workerUrlSchema,
      bootstrapPort: z.number().int().min(1).max(65535).nullable(),
    }),
  ),
  decode: z.array(workerUrlSchema),
  prefillPolicy: z.enum(LEG_POLICY_NAMES).optional(),
  prefillMaxInflightRequestsPerWorker: z.number().int(),
  prefillQueueSize: nonNegativeInt,
  prefillQueueTimeoutSecs: secs(1),
  pdAdmissionWaitSecs: secs(0),
  disablePdDecodeAdmission: z.boolean(),
  decodePolicy: z.enum(LEG_POLICY_NAMES).optional(),
  policy: z.enum(POLICY_NAMES),
  // Policy tuning values have only their type's range here (SMG's clap types); the bounds SMG
  // checks for the policies in use are in policy-bounds.ts.
  cacheThreshold: z.number(),
  balanceAbsThreshold: nonNegativeInt,
  balanceRelThreshold: z.number(),
  balanceTokenUsageThreshold: z.number(),
  overloadTokenUsageThreshold: z.number(),
  // 0 = no sweep (sticky keys and manual assignments never expire), as SMG; cache_aware needs > 0.
  evictionIntervalSecs: secs(0),
  maxTreeSize: nonNegativeInt,
  prefixTokenCount: nonNegativeInt,
  prefixHashLoadFactor: z.number(),
  prefixHashBalanceAbsThreshold: nonNegativeInt,
  leastLoadKvPressureWeight: z.number(),
  leastLoadDefaultThroughput: z.number(),
  leastLoadMeanPrefillTokens: nonNegativeInt,
  leastLoadMaxWaitingRequests: nonNegativeInt,
  // 0 = sticky keys never expire (SMG starts no sweep).
  maxIdleSecs: secs(0),
  assignmentMode: z.enum(ASSIGNMENT_MODES).optional(),
  routingKeyOverride: z.boolean(),
  routingKeyHeaders: z.array(headerName),
  dpAware: z.boolean(),
  // >= 1 unless --disable-retries (a cross-field rule), as SMG's effective retry config.
  retryMaxRetries: nonNegativeInt,
  retryInitialBackoffMs: millis(1),
  retryMaxBackoffMs: millis(0),
  retryBackoffMultiplier: z.number().min(1),
  retryJitterFactor: z.number().min(0).max(1),
  disableRetries: z.boolean(),
  // >= 1 unless --disable-circuit-breaker (a cross-field rule), as SMG's effective breaker config.
  cbFailureThreshold: nonNegativeInt,
  cbSuccessThreshold: positiveInt,
  cbTimeoutDurationSecs: secs(1),
  cbWindowDurationSecs: secs(1),
  disableCircuitBreaker: z.boolean(),
  loadMonitorInterval: secs(1),
  disableLoadMonitoring: z.boolean(),
  engineMetrics: z.boolean(),
  workerOverloadProtection: z.boolean(),
  workerOverloadWaitingRequests: positiveInt.optional(),
  workerOverloadTokenUsage: z.number().gt(0).max(1).optional(),
  // Any value <= 0 turns the limit off (SMG app_context.rs).
  maxConcurrentRequests: i32,
  queueSize: nonNegativeInt,
  // 0 only with --queue-size 0 (a cross-field rule), as SMG.
  queueTimeoutSecs: secs(0),
  // A whole number (SMG's i32); 0 = no refill, permits return when responses end, as unset.
  rateLimitTokensPerSecond: i32.min(0).optional(),
  apiKey: z.string().min(1).optional(),
  controlPlaneApiKeys: z.array(controlPlaneApiKey),
  maxPayloadSize: positiveInt,
  maxBufferedBodyBytes: positiveInt,
  requestBodyTimeoutSecs: secs(1),
  requestTimeoutSecs: secs(1),
  // 0 keeps idle connections for as long as the worker allows (SMG: no idle timeout).
  upstreamPoolIdleTimeoutSecs: secs(0),
  shutdownGracePeriodSecs: secs(0),
  requestIdHeaders: z.array(z.string().min(1)),
  corsAllowedOrigins: z.array(checked(corsOriginProblem)),
  modelAlias: z.array(modelAlias),
  logLevel: z.enum(LOG_LEVELS),
  logJson: z.boolean(),
  prometheusHost: z.string().min(1),
  prometheusPort: port,
  dashboardPath,
  disableDashboard: z.boolean(),
  enableTrace: z.boolean(),
  // Checked only with --enable-trace (validate.ts), as SMG checks it only then.
  otlpTracesEndpoint: z.string().min(1),
  // SMG validates no health value; what a 0 means is in workers/health.ts (probeDelayMs) and
  // workers/discovery/metadata.ts (a 0 s probe timeout fails the probe).
  healthCheckIntervalSecs: secs(0),
  healthCheckTimeoutSecs: secs(0),
  healthCheckEndpoint: probePath,
  healthFailureThreshold: nonNegativeInt,
  healthSuccessThreshold: nonNegativeInt,
  disableHealthCheck: z.boolean(),
  removeUnhealthyWorkers: z.boolean(),
  drainSettleSecs: secs(0),
  workerStartupTimeoutSecs: secs(1),
  workerStartupDelay: secs(0),
  workerStartupCheckInterval: secs(1),
  healthCheckPort: port.optional(),
  // Tokenizer sources and cache (gRPC workers); paths are checked when a tokenizer loads.
  modelPath: z.string().min(1).optional(),
  tokenizerPath: z.string().min(1).optional(),
  chatTemplate: z.string().min(1).optional(),
  disableTokenizerAutoload: z.boolean(),
  tokenizerCacheEnableL0: z.boolean(),
  tokenizerCacheL0MaxEntries: nonNegativeInt,
  // Parser names are checked against the parser tables by the flag itself.
  reasoningParser: z.string().min(1).optional(),
  toolCallParser: z.string().min(1).optional(),
  // Scale-out: processes on this host, and where admission state is shared across replicas.
  workers: z.number().int().min(1).max(256),
  admissionStore: redisUrl.optional(),
  admissionLeaseSecs: secs(1),
  admissionReplicas: positiveInt.optional(),
  // Kubernetes service discovery. The port must be above 0 only when discovery is on, and the
  // mode's selector must be given (smg-rules.ts).
  serviceDiscovery: z.boolean(),
  selector: z.array(checked(selectorEntryProblem)),
  prefillSelector: z.array(checked(selectorEntryProblem)),
  decodeSelector: z.array(checked(selectorEntryProblem)),
  serviceDiscoveryPort: port,
  serviceDiscoveryNamespace: z.string().min(1).optional(),
  bootstrapPortAnnotation: z.string().min(1),
  modelIdFrom: checked(modelIdSourceProblem).optional(),
  // History storage. The URLs and pool sizes are checked for the backend chosen only, as SMG
  // checks them (history-rules.ts); an unset retention is 30 days, a negative one forever.
  historyBackend: z.enum(HISTORY_BACKENDS),
  redisUrl: z.string().optional(),
  redisPoolMaxSize: nonNegativeInt,
  redisRetentionDays: z.number().int().optional(),
  postgresDbUrl: z.string().optional(),
  postgresPoolMaxSize: nonNegativeInt,
  historyMemoryMaxResponses: positiveInt,
  historyMemoryMaxConversations: positiveInt,
});

export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;
