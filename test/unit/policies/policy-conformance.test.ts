// Every policy `--policy` accepts holds the policy contract (policy-conformance.ts), built as the
// gateway builds it, and again wrapped for `--routing-key-override`.
import { POLICY_NAMES, type PolicyName } from '../../../src/policies/names.js';
import { createPolicy } from '../../../src/policies/registry.js';
import { testDeps } from './policy-fixtures.js';
import { runPolicySuite } from './policy-conformance.js';

// policy.ts: the hash policies choose among `eligible` (they ignore the circuit breaker).
const HASH_POLICIES: ReadonlySet<PolicyName> = new Set(['consistent_hashing', 'prefix_hash']);

for (const name of POLICY_NAMES) {
  const choosesAmong = HASH_POLICIES.has(name) ? 'eligible' : 'available';
  runPolicySuite({
    name,
    choosesAmong,
    newPolicy: (seed) => createPolicy(name, 'm', testDeps({}, seed)),
  });
  if (name !== 'manual')
    runPolicySuite({
      name: `${name} with --routing-key-override`,
      choosesAmong,
      newPolicy: (seed) => createPolicy(name, 'm', { ...testDeps({}, seed), stickyOverride: true }),
    });
}
