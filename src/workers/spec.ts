/**
 * SMG's WorkerSpec: the JSON body of `POST /workers`, also built from `--worker-urls`.
 * Unknown fields are ignored, as serde does; known fields are type-checked.
 */
import { z } from 'zod';
import { U32_MAX } from '../util/rust-int-limits.js';
import { MAX_TIMER_SECS, timerLimitMessage } from '@switchyard/kit';
import { RUNTIMES, WORKER_TYPES } from './worker.js';
import { connectionModeOf, workerUrlSchema } from './worker-url.js';

/** SMG's `ConnectionMode` values Switchyard has a client for (`zmq` has none). */
const CONNECTION_MODES = ['http', 'grpc'] as const;

const lowerEnum = <T extends readonly [string, ...string[]]>(values: T) =>
  z.preprocess((v) => (typeof v === 'string' ? v.toLowerCase() : v), z.enum(values));

const modelCard = z.union([
  z
    .string()
    .min(1)
    .transform((id) => ({ id })),
  z.object({ id: z.string().min(1), aliases: z.array(z.string()).optional() }).loose(),
]);

/** Health overrides become timers, so they are bounded like the duration flags. */
const healthSecs = (min: number) =>
  z.number().int().min(min).max(MAX_TIMER_SECS, timerLimitMessage('s'));

export const healthOverrideSchema = z.object({
  timeout_secs: healthSecs(1).optional(),
  check_interval_secs: healthSecs(1).optional(),
  success_threshold: z.number().int().min(1).optional(),
  failure_threshold: z.number().int().min(1).optional(),
  disable_health_check: z.boolean().optional(),
  drain_settle_secs: healthSecs(0).optional(),
});
export type HealthOverride = z.infer<typeof healthOverrideSchema>;

export const workerSpecSchema = z
  .object({
    url: workerUrlSchema,
    models: z.array(modelCard).default([]),
    worker_type: lowerEnum(WORKER_TYPES).default('regular'),
    connection_mode: lowerEnum(CONNECTION_MODES).optional(),
    runtime: lowerEnum(RUNTIMES).optional(),
    runtime_type: lowerEnum(RUNTIMES).optional(),
    labels: z.record(z.string(), z.string()).default({}),
    priority: z.number().int().min(0).max(U32_MAX).default(50),
    cost: z.number().min(0).default(1.0),
    api_key: z.string().min(1).optional(),
    bootstrap_port: z.number().int().min(1).max(65535).nullable().optional(),
    kv_connector: z.string().optional(),
    kv_role: z.string().optional(),
    kv_engine_id: z.string().optional(),
    kv_block_size: z.number().int().min(1).optional(),
    dp_size: z.number().int().min(1).optional(),
    health: healthOverrideSchema.optional(),
  })
  .loose()
  .transform((spec, ctx) => {
    // The scheme decides, as SMG's `ConnectionMode::from_url`; a stated mode must agree with it.
    const derived = connectionModeOf(spec.url);
    if (spec.connection_mode !== undefined && spec.connection_mode !== derived) {
      ctx.addIssue({
        code: 'custom',
        path: ['connection_mode'],
        message: `is '${spec.connection_mode}' but the URL ${spec.url} is a${derived === 'http' ? 'n http' : ' grpc'} URL; use a ${spec.connection_mode === 'grpc' ? 'grpc:// or grpcs://' : 'http:// or https://'} URL or leave connection_mode out`,
      });
      return z.NEVER;
    }
    return { ...spec, connection_mode: derived };
  });

export type WorkerSpec = z.output<typeof workerSpecSchema>;

export type SpecResult = { ok: true; spec: WorkerSpec } | { ok: false; message: string };

export function parseWorkerSpec(input: unknown): SpecResult {
  const parsed = workerSpecSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `'${issue.path.join('.')}' ` : '';
    return { ok: false, message: `Invalid worker spec: ${where}${issue?.message ?? 'invalid'}` };
  }
  return { ok: true, spec: parsed.data };
}

/** WorkerUpdateRequest for PATCH: the mutable fields only. */
export const workerPatchSchema = z.object({
  priority: z.number().int().min(0).max(U32_MAX).optional(),
  cost: z.number().min(0).optional(),
  labels: z.record(z.string(), z.string()).optional(),
  api_key: z.string().min(1).optional(),
  health: healthOverrideSchema.optional(),
});
export type WorkerPatch = z.infer<typeof workerPatchSchema>;
