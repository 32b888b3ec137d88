/**
 * The worker API: `/workers` and `/workers/{id}` with SMG's replies and `{error, code}` shape
 * (SMG `worker/service.rs`). Registration runs in the background; the reply is 202 at once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { recordErrorCode, sendJson } from '../../errors/respond.js';
import { parseWorkerSpec, workerPatchSchema, type WorkerSpec } from '../../workers/spec.js';
import type { Worker } from '../../workers/worker.js';
import type { AppContext } from '../app-context.js';
import { readAdminObject } from './admin-json.js';

type WorkerApiCode =
  'WORKER_NOT_FOUND' | 'BAD_REQUEST' | 'WORKER_ALREADY_EXISTS' | 'INTERNAL_SERVER_ERROR';

function workerError(
  res: ServerResponse,
  status: number,
  code: WorkerApiCode,
  message: string,
): void {
  recordErrorCode(res, code);
  sendJson(res, status, { error: message, code });
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** WorkerInfo: the spec fields flattened, plus identity, status and load. Never the api key. */
export function workerInfo(w: Worker, app: AppContext): Record<string, unknown> {
  const { api_key: _secret, ...spec } = w.spec as Record<string, unknown>;
  return {
    ...spec,
    id: w.id,
    url: w.url,
    models: w.models.map((id) => ({ id })),
    model_id: w.modelId,
    worker_type: w.type,
    connection_mode: w.connectionMode,
    runtime_type: w.runtime,
    labels: w.labels,
    priority: w.priority,
    cost: w.cost,
    bootstrap_port: w.bootstrapPort ?? null,
    ...(w.dpRank === undefined
      ? {}
      : { dp_rank: w.dpRank, dp_size: w.dpSize, routed_worker_id: w.key }),
    is_healthy: w.isHealthy,
    status: w.status,
    load: w.load,
    job_status: app.workers.job(w.id) ?? null,
  };
}

async function readSpec(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<WorkerSpec | undefined> {
  const read = await readAdminObject(req, res, app);
  if (read === undefined) return undefined;
  if ('invalid' in read) {
    workerError(res, 400, 'BAD_REQUEST', `Invalid JSON body: ${read.invalid}`);
    return undefined;
  }
  const parsed = parseWorkerSpec(read.body);
  if (!parsed.ok) {
    workerError(res, 400, 'BAD_REQUEST', parsed.message);
    return undefined;
  }
  const refusal = await app.workers.refusal(parsed.spec.url);
  if (refusal !== undefined) {
    workerError(res, 400, 'BAD_REQUEST', `Invalid worker spec: 'url' ${refusal}`);
    return undefined;
  }
  return parsed.spec;
}

export async function createWorker(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
): Promise<void> {
  const spec = await readSpec(req, res, app);
  if (!spec) return;
  const { id, conflict } = app.workers.add(spec);
  if (conflict) {
    workerError(
      res,
      409,
      'WORKER_ALREADY_EXISTS',
      `Worker already exists at URL '${spec.url}' with ID ${id}. Use PUT /workers/${id} or PATCH /workers/${id} to update it.`,
    );
    return;
  }
  const location = `/workers/${id}`;
  sendJson(
    res,
    202,
    {
      status: 'accepted',
      worker_id: id,
      url: spec.url,
      location,
      message: 'Worker addition queued for background processing',
    },
    { location },
  );
}

export function listWorkers(req: IncomingMessage, res: ServerResponse, app: AppContext): void {
  const model = new URL(req.url ?? '/', 'http://x').searchParams.get('model');
  const workers = app.registry.all().filter((w) => model === null || w.serves(model));
  const count = (type: Worker['type']): number => workers.filter((w) => w.type === type).length;
  sendJson(res, 200, {
    workers: workers.map((w) => workerInfo(w, app)),
    total: workers.length,
    stats: {
      prefill_count: count('prefill'),
      decode_count: count('decode'),
      regular_count: count('regular'),
    },
  });
}

/** Handles `/workers/{id}` for every method. */
export async function workerById(
  req: IncomingMessage,
  res: ServerResponse,
  app: AppContext,
  id: string,
): Promise<void> {
  if (!UUID_RE.test(id)) {
    workerError(res, 400, 'BAD_REQUEST', `Invalid worker id '${id}': expected a UUID`);
    return;
  }
  // HEAD reaches this handler through the GET route (routes.ts) and answers as GET does; Node
  // writes no body for a HEAD response.
  const method = req.method === 'HEAD' ? 'GET' : req.method;
  const worker = app.registry.get(id);
  const pending = app.workers.pendingSpec(id);
  if (!worker && !pending) {
    const job = app.workers.job(id);
    // A registration that failed stays visible with its job record until it is deleted.
    if (job?.status === 'failed' && job.job_type !== 'RemoveWorker') {
      if (method === 'GET') {
        sendJson(res, 200, { id, url: job.worker_url, status: 'failed', job_status: job });
        return;
      }
      if (method === 'DELETE') {
        app.workers.forget(id);
        sendJson(res, 202, {
          status: 'accepted',
          worker_id: id,
          message: 'Worker removal queued for background processing',
        });
        return;
      }
    }
    workerError(res, 404, 'WORKER_NOT_FOUND', `Worker with ID ${id} not found`);
    return;
  }
  switch (method) {
    case 'GET': {
      if (worker) sendJson(res, 200, workerInfo(worker, app));
      // Still registering: a partial WorkerInfo with the job's status, as SMG.
      else
        sendJson(res, 200, {
          id,
          url: pending?.url,
          status: 'pending',
          job_status: app.workers.job(id) ?? null,
        });
      return;
    }
    case 'PUT': {
      const spec = await readSpec(req, res, app);
      if (!spec) return;
      if (worker?.dpRank !== undefined) {
        workerError(
          res,
          400,
          'BAD_REQUEST',
          'PUT is not supported for data-parallel workers; DELETE and POST instead',
        );
        return;
      }
      const currentUrl = worker?.url ?? pending?.url;
      if (spec.url !== currentUrl) {
        workerError(
          res,
          400,
          'BAD_REQUEST',
          `URL in body '${spec.url}' does not match worker URL '${currentUrl ?? ''}'`,
        );
        return;
      }
      app.workers.update(id, spec);
      sendJson(res, 202, {
        status: 'accepted',
        worker_id: id,
        message: 'Worker update queued for background processing',
      });
      return;
    }
    case 'PATCH': {
      const read = await readAdminObject(req, res, app);
      if (read === undefined) return;
      if ('invalid' in read) {
        workerError(res, 400, 'BAD_REQUEST', `Invalid JSON body: ${read.invalid}`);
        return;
      }
      let patch;
      try {
        patch = workerPatchSchema.parse(read.body);
      } catch (err) {
        workerError(res, 400, 'BAD_REQUEST', `Invalid update: ${(err as Error).message}`);
        return;
      }
      if (!worker) {
        workerError(res, 404, 'WORKER_NOT_FOUND', `Worker with ID ${id} is still registering`);
        return;
      }
      app.workers.patch(worker, patch);
      sendJson(res, 202, {
        status: 'accepted',
        worker_id: id,
        message: 'Worker update queued for background processing',
      });
      return;
    }
    case 'DELETE': {
      app.workers.remove(id, worker?.url ?? pending?.url ?? '');
      sendJson(res, 202, {
        status: 'accepted',
        worker_id: id,
        message: 'Worker removal queued for background processing',
      });
      return;
    }
    case undefined:
    default:
      workerError(
        res,
        405,
        'BAD_REQUEST',
        `Method ${req.method ?? ''} not allowed on /workers/{id}`,
      );
  }
}
