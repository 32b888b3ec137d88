/** Small HTTP helpers for integration tests (global fetch against loopback servers). */
import assert from 'node:assert/strict';

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Asserts an SMG error envelope with its status, code and X-SMG-Error-Code header. */
export async function assertGatewayError(
  res: Response,
  status: number,
  code: string,
): Promise<{ message: string }> {
  const text = await res.text();
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${text}`);
  assert.equal(res.headers.get('x-smg-error-code'), code);
  assert.match(res.headers.get('content-type') ?? '', /application\/json/);
  const body = JSON.parse(text) as {
    error: { type: string; code: string; message: string; param: null };
  };
  assert.equal(body.error.code, code);
  assert.equal(body.error.param, null);
  assert.ok(body.error.message.length > 0);
  assert.ok(body.error.type.length > 0);
  return body.error;
}

/** Asserts `POST /workers` refuses `url` with the worker API's 400 BAD_REQUEST; returns the message. */
export async function assertWorkerRefused(
  gatewayUrl: string,
  url: string,
  pattern: RegExp,
): Promise<string> {
  const res = await postJson(`${gatewayUrl}/workers`, { url });
  const body = (await res.json()) as { error: string; code: string };
  assert.equal(res.status, 400, `${url}: ${JSON.stringify(body)}`);
  assert.equal(body.code, 'BAD_REQUEST');
  assert.match(body.error, pattern, url);
  return body.error;
}

export function totalRequests(stats: { requests: Record<string, number> }): number {
  return Object.values(stats.requests).reduce((a, b) => a + b, 0);
}
