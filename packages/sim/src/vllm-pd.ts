// vLLM PD legs. vLLM has no rendezvous: the router first sends the prefill a 1-token request tagged
// `kv_transfer_params.do_remote_decode: true`, then the decode the original request with the
// handoff parameters (`do_remote_prefill: true`). A decode with valid parameters reads the
// prefill's KV over HTTP and skips prefill compute; anything else (missing, invalid or expired
// parameters, unreachable prefill) makes it recompute the prompt, as vLLM silently does.
import type { KvClient, PendingCall } from './kv-client.js';
import type { KvPins } from './kv-pins.js';
import type { SimKvConnector } from './options.js';
import type { PdHost, PdLeg } from './pd-leg.js';
import type { FinishReason } from './request-parse.js';
import type { StatsRecorder } from './stats.js';

/** NIXL side-channel read on the prefill (main port or bootstrap port). */
export const NIXL_PULL_PATH = '/sim/kv/pull';
/** Mooncake: the decode appends `/query` to `remote_bootstrap_addr`. */
export const MOONCAKE_QUERY_PATH = '/query';

type Params = Record<string, unknown>;

/** Where the prefill tells decodes to read from (NIXL remote_host / remote_port). */
export interface SideChannel {
  host: string;
  port: number;
}

export class VllmPrefillLeg implements PdLeg {
  readonly remoteKv = false;
  private readonly transferId: string | undefined;
  private ended = false;

  constructor(
    private readonly pins: KvPins,
    private readonly connector: SimKvConnector,
    params: Params,
    private readonly requestId: string,
    private readonly promptTokens: number,
    private readonly finish: FinishReason,
    private readonly side: SideChannel,
  ) {
    const id = params['transfer_id'];
    this.transferId = connector === 'MooncakeConnector' && typeof id === 'string' ? id : undefined;
  }

  prepare(host: PdHost): void {
    if (this.transferId !== undefined) this.pins.expectMooncake(this.transferId);
    host.proceed();
  }

  onFinished(): Record<string, unknown> {
    this.ended = true;
    // vLLM's connector hands KV over only for a request that stopped on its length cap: if the
    // one sampled token was EOS the request finished 'stop' and there is nothing to hand over.
    if (this.finish !== 'length') {
      if (this.transferId !== undefined) this.pins.dropMooncake(this.transferId);
      return { kv_transfer_params: null };
    }
    if (this.connector === 'MooncakeConnector') {
      if (this.transferId !== undefined)
        this.pins.readyMooncake(this.transferId, this.promptTokens);
      return { kv_transfer_params: null };
    }
    const blockIds = this.pins.pinNixl(this.requestId, this.promptTokens);
    if (blockIds === undefined) return { kv_transfer_params: null };
    return {
      kv_transfer_params: {
        do_remote_prefill: true,
        do_remote_decode: false,
        remote_block_ids: blockIds,
        remote_engine_id: this.pins.engineId,
        remote_request_id: this.requestId,
        remote_host: this.side.host,
        remote_port: this.side.port,
        tp_size: 1,
      },
    };
  }

  onEnd(): void {
    if (this.ended) return;
    this.ended = true;
    if (this.transferId !== undefined) this.pins.dropMooncake(this.transferId);
  }
}

export class VllmDecodeLeg implements PdLeg {
  readonly remoteKv = true;
  private call: PendingCall | undefined;
  private ended = false;

  constructor(
    private readonly connector: SimKvConnector,
    private readonly params: Params,
    private readonly client: KvClient,
    private readonly stats: StatsRecorder,
  ) {}

  onAdmitted(host: PdHost): void {
    const target = this.target();
    if (target === undefined) {
      this.recompute(host);
      return;
    }
    this.call = this.client.post(target.url, JSON.stringify(target.body));
    this.call.result.then(
      (r) => {
        if (this.ended) return;
        if (r.status === 200 && (r.body as { ok?: unknown } | undefined)?.ok === true) {
          this.stats.kvTransfers++;
          host.kvReady();
        } else {
          this.recompute(host);
        }
      },
      () => {
        if (!this.ended) this.recompute(host);
      },
    );
  }

  onFinished(): undefined {
    this.ended = true;
    return undefined;
  }

  onEnd(): void {
    if (this.ended) return;
    this.ended = true;
    this.call?.abort();
  }

  private recompute(host: PdHost): void {
    this.stats.promptsRecomputed++;
    host.recompute();
  }

  private target(): { url: string; body: Params } | undefined {
    const p = this.params;
    const engineId = p['remote_engine_id'];
    if (typeof engineId !== 'string' || engineId === '') return undefined;
    if (this.connector === 'MooncakeConnector') {
      const addr = p['remote_bootstrap_addr'];
      const transferId = p['transfer_id'];
      // The decode appends /query to the address, so it must carry its http:// scheme.
      if (typeof addr !== 'string' || !addr.startsWith('http://')) return undefined;
      if (typeof transferId !== 'string' || transferId === '') return undefined;
      return {
        url: addr.replace(/\/+$/, '') + MOONCAKE_QUERY_PATH,
        body: { transfer_id: transferId, remote_engine_id: engineId },
      };
    }
    const host = p['remote_host'];
    const port = p['remote_port'];
    const blocks = p['remote_block_ids'];
    if (typeof host !== 'string' || host === '') return undefined;
    if (typeof port !== 'number' || !Number.isInteger(port) || port < 1 || port > 65_535) {
      return undefined;
    }
    if (!Array.isArray(blocks) || blocks.length === 0) return undefined;
    const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
    return {
      url: `http://${hostPart}:${port}${NIXL_PULL_PATH}`,
      body: {
        remote_engine_id: engineId,
        remote_request_id: p['remote_request_id'],
        remote_block_ids: blocks,
      },
    };
  }
}
