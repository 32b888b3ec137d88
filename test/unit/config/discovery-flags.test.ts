// The service discovery flags: SMG's defaults, SMG's startup rules (the mode's selector, a port
// above 0), IGW turned on as SMG does, and a line for each selector the mode does not read.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '@switchyard/kit';
import { resolveLaunchFlags } from '../../../src/config/launch-flags.js';

function refusal(argv: string[]): string {
  try {
    resolveLaunchFlags(argv);
  } catch (err) {
    assert.ok(err instanceof UsageError, String(err));
    return err.message;
  }
  return assert.fail(`'${argv.join(' ')}' was accepted`);
}

void describe('service discovery flags', () => {
  it("keeps SMG's defaults and leaves discovery off", () => {
    const { config } = resolveLaunchFlags([]);
    assert.equal(config.serviceDiscovery, false);
    assert.equal(config.serviceDiscoveryPort, 80);
    assert.equal(config.bootstrapPortAnnotation, 'sglang.ai/bootstrap-port');
    assert.equal(config.serviceDiscoveryNamespace, undefined);
    assert.equal(config.modelIdFrom, undefined);
    assert.equal(config.enableIgw, false);
  });

  it('turns on IGW, as SMG, and says so', () => {
    const { config, warnings } = resolveLaunchFlags([
      '--service-discovery',
      '--selector',
      'app=sglang',
      'tier=gpu',
      '--service-discovery-namespace',
      'llm',
      '--model-id-from',
      'label:model',
    ]);
    assert.equal(config.enableIgw, true);
    assert.deepEqual(config.selector, ['app=sglang', 'tier=gpu']);
    assert.equal(config.serviceDiscoveryNamespace, 'llm');
    assert.equal(config.modelIdFrom, 'label:model');
    assert.ok(warnings.some((w) => w.includes('--service-discovery turns on --enable-igw')));
  });

  it("refuses what SMG's validate_discovery refuses", () => {
    assert.equal(
      refusal(['--service-discovery']),
      '--service-discovery: regular mode needs a non-empty --selector',
    );
    assert.equal(
      refusal(['--service-discovery', '--pd-disaggregation', '--selector', 'app=x']),
      '--service-discovery: PD mode needs a non-empty --prefill-selector or --decode-selector',
    );
    assert.equal(
      refusal(['--service-discovery', '--selector', 'app=x', '--service-discovery-port', '0']),
      '--service-discovery-port: must be > 0 with --service-discovery (got 0)',
    );
    // Without discovery SMG validates none of it.
    assert.equal(
      resolveLaunchFlags(['--service-discovery-port', '0']).config.serviceDiscoveryPort,
      0,
    );
  });

  it('accepts one PD role selector alone, as SMG', () => {
    const { config } = resolveLaunchFlags([
      '--service-discovery',
      '--pd-disaggregation',
      '--decode-selector',
      'role=decode',
    ]);
    assert.deepEqual(config.decodeSelector, ['role=decode']);
  });

  it('names each selector the mode does not read', () => {
    const pd = resolveLaunchFlags([
      '--service-discovery',
      '--pd-disaggregation',
      '--selector',
      'app=x',
      '--prefill-selector',
      'role=p',
    ]).warnings;
    assert.ok(pd.some((w) => w.startsWith('--selector is ignored with --pd-disaggregation')));
    const regular = resolveLaunchFlags([
      '--service-discovery',
      '--selector',
      'app=x',
      '--decode-selector',
      'role=d',
    ]).warnings;
    assert.ok(
      regular.includes('--decode-selector is ignored without --pd-disaggregation (as SMG)'),
    );
    const off = resolveLaunchFlags(['--selector', 'app=x']).warnings;
    assert.deepEqual(off, ['--selector is ignored without --service-discovery (as SMG)']);
  });
});
