// The worker API's own error codes (`{error, code}` bodies) are counted under
// `smg_http_responses_total{error_code}` as docs/metrics.md promises, like the gateway's envelope codes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, test } from 'node:test';
import { startTestGateway, metricValue, scrapeMetrics } from '../helpers/gateway.js';

const gateway = await startTestGateway();
after(() => gateway.close());

test('GET /workers/<unknown id> is counted with error_code WORKER_NOT_FOUND', async () => {
  const res = await fetch(`${gateway.url}/workers/${randomUUID()}`);
  assert.equal(res.status, 404);
  assert.equal(res.headers.get('x-smg-error-code'), 'WORKER_NOT_FOUND');
  assert.equal(((await res.json()) as { code: string }).code, 'WORKER_NOT_FOUND');

  const text = await scrapeMetrics(gateway);
  const labels = { path: '/workers/{worker_id}', status_code: '404' };
  assert.equal(
    metricValue(text, 'smg_http_responses_total', { ...labels, error_code: 'WORKER_NOT_FOUND' }),
    1,
  );
  assert.equal(
    metricValue(text, 'smg_http_responses_total', { ...labels, error_code: '' }),
    undefined,
  );
});
