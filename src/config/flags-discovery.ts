/**
 * Kubernetes service discovery flags, SMG's names and CLI defaults (main.rs "Service Discovery
 * (Kubernetes)"), plus the bootstrap-port annotation name SMG's Python launcher takes. What they
 * do is in src/discovery/kubernetes/ and docs/service-discovery.md.
 */
import { modelIdSourceProblem } from '../discovery/kubernetes/model-id-source.js';
import { selectorEntryProblem } from '../discovery/kubernetes/selector.js';
import type { CoreFlag } from './core-flag.js';
import { u16 } from './flag-status.js';

const SELECTOR = { kind: 'list', default: [], metavar: '<key=value...>' } as const;

export const DISCOVERY_FLAGS: readonly CoreFlag[] = [
  {
    name: 'service-discovery',
    key: 'serviceDiscovery',
    kind: 'bool',
    default: false,
    help: 'Register workers from Kubernetes pods (turns on --enable-igw, as SMG)',
  },
  {
    name: 'selector',
    key: 'selector',
    ...SELECTOR,
    help: 'Worker pods: labels a pod must all carry (regular mode)',
    check: selectorEntryProblem,
  },
  {
    name: 'prefill-selector',
    key: 'prefillSelector',
    ...SELECTOR,
    help: 'Prefill worker pods (with --pd-disaggregation)',
    check: selectorEntryProblem,
  },
  {
    name: 'decode-selector',
    key: 'decodeSelector',
    ...SELECTOR,
    help: 'Decode worker pods (with --pd-disaggregation)',
    check: selectorEntryProblem,
  },
  {
    name: 'service-discovery-port',
    key: 'serviceDiscoveryPort',
    kind: 'int',
    default: 80,
    help: 'Worker port of a pod without the smg.ai/worker-ports annotation',
    check: u16,
  },
  {
    name: 'service-discovery-namespace',
    key: 'serviceDiscoveryNamespace',
    kind: 'string',
    metavar: '<namespace>',
    help: 'Namespace whose pods are watched (default: all namespaces)',
  },
  {
    name: 'bootstrap-port-annotation',
    key: 'bootstrapPortAnnotation',
    kind: 'string',
    default: 'sglang.ai/bootstrap-port',
    metavar: '<annotation>',
    help: "Pod annotation with a prefill pod's bootstrap port(s) (Switchyard-only; SMG's Python launcher option, fixed in its Rust CLI)",
    status: 'switchyard-only',
  },
  {
    name: 'model-id-from',
    key: 'modelIdFrom',
    kind: 'string',
    metavar: 'namespace|label:<key>|annotation:<key>',
    help: "A discovered worker's model id: the pod's namespace, or one of its labels or annotations",
    check: modelIdSourceProblem,
  },
];
