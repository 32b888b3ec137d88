// The store --history-backend names, with the memory bounds it is given, and the warning that a
// memory store is private to each process of --workers N.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { resolveLaunchFlags } from '../../../src/config/launch-flags.js';
import type { Logger } from '../../../src/observability/logger.js';
import {
  historyStoreFromConfig,
  localHistoryStore,
} from '../../../src/storage/history-store-from-config.js';

const config = (args: string[]) => resolveLaunchFlags(args).config;

function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const logger = { warn: (_obj: object, msg: string) => warnings.push(msg) } as unknown as Logger;
  return { logger, warnings };
}

const response = (id: string) => ({ id, input: [], response: { id }, createdAt: 1 });

test('memory: bounded by --history-memory-max-responses and --history-memory-max-conversations', async () => {
  const { logger, warnings } = recordingLogger();
  const store = await historyStoreFromConfig(
    config(['--history-memory-max-responses', '2', '--history-memory-max-conversations', '1']),
    { logger },
  );
  assert.equal(store.backend, 'memory');
  for (const id of ['r1', 'r2', 'r3']) await store.putResponse(response(id));
  assert.equal(await store.getResponse('r1'), undefined);
  assert.ok(await store.getResponse('r3'));
  for (const id of ['c1', 'c2']) await store.createConversation({ id, createdAt: 1, metadata: {} });
  assert.equal(await store.getConversation('c1'), undefined);
  assert.ok(await store.getConversation('c2'));
  assert.deepEqual(warnings, []);
  await store.close();
});

test('none: the no-op store', async () => {
  const { logger } = recordingLogger();
  const store = await historyStoreFromConfig(config(['--history-backend', 'none']), { logger });
  assert.equal(store.backend, 'none');
  await store.putResponse(response('r1'));
  assert.equal(await store.getResponse('r1'), undefined);
});

test('memory under --workers 2 warns that each process has its own', async () => {
  const { logger, warnings } = recordingLogger();
  await historyStoreFromConfig(config(['--workers', '2']), { logger });
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] ?? '', /own memory history store.*redis or postgres/);
  await historyStoreFromConfig(config(['--workers', '2', '--history-backend', 'none']), { logger });
  assert.equal(warnings.length, 1);
});

test('only the in-process backends are built without connecting', () => {
  assert.equal(localHistoryStore(config([]))?.backend, 'memory');
  assert.equal(localHistoryStore(config(['--history-backend', 'none']))?.backend, 'none');
  const redis = config(['--history-backend', 'redis', '--redis-url', 'redis://127.0.0.1:1']);
  assert.equal(localHistoryStore(redis), undefined);
  const pg = config(['--history-backend', 'postgres', '--postgres-db-url', 'postgres://h/db']);
  assert.equal(localHistoryStore(pg), undefined);
});
