// The prefill's peer-facing endpoints: SGLang's bootstrap server (its own listener on
// --bootstrap-port, as in SGLang where it runs inside the prefill server) and the vLLM KV reads.
// SGLang's real bootstrap server only exchanges rank tables and the KV moves over RDMA; the
// simulator folds the whole handshake into one HTTP long poll, `POST /sim/bootstrap/join`, which
// answers when the KV "lands" and whose closing tells the prefill that the decode left.
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DecodePeer } from './room-table.js';
import type { WorkerContext } from './worker-context.js';
import { readJsonBody, sendEmpty, sendJson, sendText } from './http-io.js';
import { readRooms } from './raw-json.js';
import { errorBody } from './responses.js';
import { BOOTSTRAP_JOIN_PATH } from './sglang-pd.js';
import { MOONCAKE_QUERY_PATH, NIXL_PULL_PATH } from './vllm-pd.js';

type Body = Record<string, unknown>;

/** Decode joins a room; answered `{status: 'ok'|'aborted'}` when the room resolves. */
export async function handleJoin(
  w: WorkerContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const read = await readJsonBody(req, res);
  if (!read.ok) return;
  const rooms = readRooms(read.raw);
  const room = rooms.ok && rooms.rooms?.length === 1 ? rooms.rooms[0] : undefined;
  if (room === undefined) {
    sendJson(res, 400, errorBody(400, 'join needs one bootstrap_room', 'invalid_request_error'));
    return;
  }
  const peer: DecodePeer = {
    deliver: (status) => {
      if (!res.writableEnded) sendJson(res, 200, { status, bootstrap_room: room });
    },
  };
  // Registered before the table can deliver, so a join that resolves at once still works.
  res.once('close', () => {
    if (!res.writableFinished) w.rooms.decodeGone(room, peer);
  });
  if (w.rooms.join(room, peer) === 'busy') {
    sendJson(res, 409, errorBody(409, `room ${room} already has a decode`, 'room_in_use'));
  }
}

/** NIXL: the decode reads pinned blocks; 404 when unknown, expired or for another engine. */
export async function handleNixlPull(
  w: WorkerContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const read = await readJsonBody(req, res);
  if (!read.ok) return;
  const b = (read.body ?? {}) as Body;
  const ok = w.pins.pullNixl(b['remote_engine_id'], b['remote_request_id'], b['remote_block_ids']);
  sendJson(res, ok ? 200 : 404, { ok });
}

/** Mooncake: the decode asks for a transfer id; answered once the prefill's KV is ready. */
export async function handleMooncakeQuery(
  w: WorkerContext,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const read = await readJsonBody(req, res);
  if (!read.ok) return;
  const b = (read.body ?? {}) as Body;
  const cancel = w.pins.queryMooncake(b['transfer_id'], b['remote_engine_id'], (ok) => {
    if (!res.writableEnded) sendJson(res, ok ? 200 : 404, { ok });
  });
  res.once('close', cancel);
}

/**
 * Starts the bootstrap listener of a prefill worker. It serves the KV reads too, so NIXL decodes
 * are pointed at it (`side.port`): on a gRPC worker it is the only HTTP port there is.
 */
export async function startBootstrapServer(
  w: WorkerContext,
  host: string,
  port: number,
): Promise<Server> {
  const server = createServer();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    const run = (): void | Promise<void> => {
      if (req.method === 'POST' && path === BOOTSTRAP_JOIN_PATH) return handleJoin(w, req, res);
      if (req.method === 'POST' && path === NIXL_PULL_PATH) return handleNixlPull(w, req, res);
      if (req.method === 'POST' && path === MOONCAKE_QUERY_PATH) {
        return handleMooncakeQuery(w, req, res);
      }
      if (req.method === 'GET' && path === '/health') return sendText(res, 200, 'OK');
      // Rank registration and lookup exist on SGLang's server; the simulator has one rank.
      if (req.method === 'PUT' && path === '/route') return sendEmpty(res, 200);
      if (req.method === 'GET' && path === '/route') {
        return sendJson(res, 200, {
          rank_ip: host,
          rank_port: (server.address() as AddressInfo).port,
          engine_rank: 0,
          dp_rank: 0,
          page_size: w.opts.blockSize,
        });
      }
      sendJson(res, 404, errorBody(404, `no route for ${path}`, 'not_found'));
    };
    const done = run();
    if (done instanceof Promise) {
      done.catch(() => {
        if (!res.headersSent) sendEmpty(res, 500);
        else res.destroy();
      });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  w.side.port = (server.address() as AddressInfo).port;
  return server;
}
