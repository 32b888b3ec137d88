// An in-process PD gateway over simulated workers, for the PD benchmarks that measure gateway
// behaviour (admission) rather than proxy CPU: gateway and simulators share one process.
import { parseFlags } from '@switchyard/kit';
import { GATEWAY_FLAGS } from '../../src/config/gateway-flags.js';
import { buildConfig } from '../../src/config/validate.js';
import { silentLogger } from '../../src/observability/logger.js';
import { startGateway, type Gateway } from '../../src/server/gateway.js';
import type { SimWorker } from '@switchyard/sim';

/** Starts a `--pd-disaggregation` gateway on loopback and resolves once every worker is ready. */
export async function startPdGateway(
  prefills: readonly SimWorker[],
  decodes: readonly SimWorker[],
  flags: readonly string[],
): Promise<Gateway> {
  const config = buildConfig(
    parseFlags(
      [
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--prometheus-host',
        '127.0.0.1',
        '--prometheus-port',
        '0',
        '--pd-disaggregation',
        ...prefills.flatMap((p) => ['--prefill', p.url, String(p.bootstrapPort ?? 'none')]),
        ...decodes.flatMap((d) => ['--decode', d.url]),
        ...flags,
      ],
      GATEWAY_FLAGS,
    ),
  );
  const gateway = await startGateway(config, { logger: silentLogger() });
  const total = prefills.length + decodes.length;
  while (gateway.internals.registry.all().filter((w) => w.isHealthy).length < total)
    await new Promise((r) => setTimeout(r, 20));
  return gateway;
}
