/**
 * Every `switchyard launch` flag, named and defaulted as SMG's CLI (`CliArgs`, main.rs).
 * The implemented ones are here (server, workers, PD) and in flags-routing.ts,
 * flags-resilience.ts, flags-serving.ts, flags-tokenizer.ts, flags-scale-out.ts,
 * flags-discovery.ts and flags-history.ts; later features add their flags there and their rules
 * to `validate.ts`. SMG flags that Switchyard accepts without effect, or refuses, have their own
 * files; GATEWAY_FLAGS is the one table of all of them, each with its status (flag-status.ts).
 */
import { LEG_POLICY_NAMES } from '../policies/names.js';
import { PD_WEIGHT_MODES } from '../routing/router-weights.js';
import { consumeUrlPort } from './consume-url-port.js';
import { policyFlag, type CoreFlag } from './core-flag.js';
import type { GatewayFlag } from './flag-status.js';
import { DISCOVERY_FLAGS } from './flags-discovery.js';
import { HISTORY_FLAGS } from './flags-history.js';
import { RESILIENCE_FLAGS } from './flags-resilience.js';
import { SCALE_OUT_FLAGS } from './flags-scale-out.js';
import { DASHBOARD_FLAGS } from './flags-dashboard.js';
import { ROUTING_FLAGS } from './flags-routing.js';
import { SERVING_FLAGS } from './flags-serving.js';
import { TOKENIZER_FLAGS } from './flags-tokenizer.js';
import { NO_EFFECT_FLAGS } from './smg-flags-no-effect.js';
import { UNSUPPORTED_FLAGS } from './smg-flags-unsupported.js';

export { LOG_LEVELS } from './flags-serving.js';

export const consumePrefill = consumeUrlPort('prefill');

const SERVER_AND_PD_FLAGS: readonly CoreFlag[] = [
  // Server / workers
  { name: 'host', key: 'host', kind: 'string', default: '0.0.0.0', help: 'Bind address' },
  { name: 'port', key: 'port', kind: 'int', default: 30000, help: 'Main port (0 = ephemeral)' },
  {
    name: 'worker-urls',
    key: 'workerUrls',
    kind: 'list',
    default: [],
    metavar: '<url...>',
    help: 'Regular-mode worker URLs',
  },
  {
    name: 'worker-allow-cidr',
    key: 'workerAllowCidr',
    kind: 'list',
    default: [],
    metavar: '<cidr...>',
    help: 'Only register workers whose address (literal or resolved) is inside one of these ranges (Switchyard-only; default: any but link-local)',
    status: 'switchyard-only',
  },
  // Prefill/decode disaggregation
  {
    name: 'pd-disaggregation',
    key: 'pdDisaggregation',
    kind: 'bool',
    default: false,
    help: 'Prefill/decode disaggregated mode',
  },
  {
    name: 'prefill',
    key: 'prefill',
    kind: 'list',
    default: [],
    metavar: '<url> [bootstrap_port|none]',
    help: 'Prefill worker with optional bootstrap port (repeatable)',
    consume: consumePrefill,
  },
  {
    name: 'enable-igw',
    key: 'enableIgw',
    kind: 'bool',
    default: false,
    help: 'Multi-model mode: regular and PD routers at once, chosen per request by available workers',
  },
  {
    name: 'pd-weight-mode',
    key: 'pdWeightMode',
    kind: 'enum',
    choices: PD_WEIGHT_MODES,
    default: 'paired',
    help: 'IGW PD weight: paired = 2*min(P,D), sum = P+D (SMG)',
    status: 'switchyard-only',
  },
  {
    name: 'decode',
    key: 'decode',
    kind: 'append',
    default: [],
    metavar: '<url>',
    help: 'Decode worker (one per flag, repeatable)',
  },
  {
    name: 'prefill-policy',
    key: 'prefillPolicy',
    ...policyFlag(LEG_POLICY_NAMES),
    help: 'Policy for the prefill leg (default: --policy)',
  },
  {
    name: 'decode-policy',
    key: 'decodePolicy',
    ...policyFlag(LEG_POLICY_NAMES),
    help: 'Policy for the decode leg (default: --policy)',
  },
  {
    name: 'prefill-max-inflight-requests-per-worker',
    key: 'prefillMaxInflightRequestsPerWorker',
    kind: 'int',
    default: -1,
    help: 'PD: in-flight prefill requests per prefill worker (<= 0 = off)',
    status: 'switchyard-only',
  },
  // Giving either option without a positive limit is a startup error (validate.ts GIVEN_RULES).
  {
    name: 'prefill-queue-size',
    key: 'prefillQueueSize',
    kind: 'int',
    default: 100,
    help: 'PD: requests that may wait for a prefill slot; 0 = reject at once',
    status: 'switchyard-only',
  },
  {
    name: 'prefill-queue-timeout-secs',
    key: 'prefillQueueTimeoutSecs',
    kind: 'int',
    default: 60,
    help: 'PD: longest wait for a prefill slot',
    status: 'switchyard-only',
  },
  {
    name: 'disable-pd-decode-admission',
    key: 'disablePdDecodeAdmission',
    kind: 'bool',
    default: false,
    help: 'PD: do not gate requests by the decode running window (Switchyard-only; for A/B comparisons)',
    status: 'switchyard-only',
  },
  {
    name: 'pd-admission-wait-secs',
    key: 'pdAdmissionWaitSecs',
    kind: 'int',
    default: 30,
    help: 'PD: longest wait for room in a decode running window, shared across retries (0 = shed at once)',
    status: 'switchyard-only',
  },
];

const CORE_FLAGS: readonly CoreFlag[] = [
  ...SERVER_AND_PD_FLAGS,
  ...ROUTING_FLAGS,
  ...RESILIENCE_FLAGS,
  ...SERVING_FLAGS,
  ...TOKENIZER_FLAGS,
  ...SCALE_OUT_FLAGS,
  ...DISCOVERY_FLAGS,
  ...DASHBOARD_FLAGS,
  ...HISTORY_FLAGS,
];

/** The one flag table: implemented, then SMG's no-effect and unsupported flags. */
export const GATEWAY_FLAGS: readonly GatewayFlag[] = [
  ...CORE_FLAGS.map((flag): GatewayFlag => ({ ...flag, status: flag.status ?? 'implemented' })),
  ...NO_EFFECT_FLAGS,
  ...UNSUPPORTED_FLAGS,
];
