/**
 * Relays an SSE body event by event through a rewrite function. Only PD logprob merging needs
 * this; every other stream is relayed as raw bytes. Events are split on the blank line that
 * ends them, so a rewrite never sees half an event.
 */
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { GatewayError } from '../errors/gateway-error.js';
import { endWithError, markEventStream, sendError } from '../errors/respond.js';
import { relayResponseHeaders } from './headers.js';
import type { RelayOutcome } from './forward.js';

export function relaySseRewritten(
  upstream: Dispatcher.ResponseData,
  res: ServerResponse,
  headers: Record<string, string>,
  rewrite: (event: string) => string,
  midStreamError: (cause: unknown) => GatewayError,
): Promise<RelayOutcome> {
  const body = upstream.body;
  if (body.destroyed || body.errored) {
    // Failed while the relay waited for the prefill's logprobs: its 'error' event already fired.
    sendError(
      res,
      midStreamError(body.errored ?? new Error('upstream body ended before it was relayed')),
    );
    return Promise.resolve('upstream_failed');
  }
  const out = relayResponseHeaders(upstream.headers, headers);
  delete out['content-length'];
  res.writeHead(upstream.statusCode, out);
  markEventStream(res);
  res.flushHeaders();
  let pending = '';
  return new Promise((resolve) => {
    let settled = false;
    const onDrain = (): void => {
      body.resume();
    };
    const finish = (o: RelayOutcome): void => {
      if (settled) return;
      settled = true;
      res.off('drain', onDrain);
      resolve(o);
    };
    res.on('drain', onDrain);
    res.once('close', () => {
      if (!res.writableFinished) {
        body.destroy();
        finish('client_closed');
      }
    });
    body.setEncoding('utf8');
    body.on('data', (chunk: string) => {
      pending += chunk;
      let cut = pending.indexOf('\n\n');
      let text = '';
      while (cut !== -1) {
        text += rewrite(pending.slice(0, cut)) + '\n\n';
        pending = pending.slice(cut + 2);
        cut = pending.indexOf('\n\n');
      }
      if (text && !res.write(text)) body.pause();
    });
    body.once('end', () => res.end(pending, () => finish('complete')));
    body.once('error', (err: unknown) => {
      if (res.destroyed) return finish('client_closed');
      endWithError(res, midStreamError(err));
      finish('upstream_failed');
    });
  });
}
