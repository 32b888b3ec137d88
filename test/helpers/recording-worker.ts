/**
 * A tiny engine that records the headers of every request it receives and answers with
 * headers the test chooses: for tests of what crosses the gateway in each direction. It
 * answers /health, /v1/models (as SGLang), /v1/completions and /get_server_info; anything else
 * is 404.
 */
import {
  createServer,
  request,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type Server,
} from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export interface RecordingWorker {
  url: string;
  readonly requests: RecordedRequest[];
  /** Extra headers on every /v1/completions answer. */
  completionHeaders: OutgoingHttpHeaders;
  /** Extra headers on every /get_server_info answer. */
  infoHeaders: OutgoingHttpHeaders;
  /** The requests to one path, oldest first. */
  to(path: string): RecordedRequest[];
  /** Closes idle keep-alive connections, so the gateway's next call opens a new one. */
  closeIdleConnections(): void;
  close(): Promise<void>;
}

export async function startRecordingWorker(model = 'recorded-model'): Promise<RecordingWorker> {
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    requests.push({ method: req.method ?? '', path, headers: req.headers });
    req.resume();
    const json = (status: number, body: unknown, headers: OutgoingHttpHeaders = {}): void => {
      res
        .writeHead(status, { ...headers, 'content-type': 'application/json' })
        .end(JSON.stringify(body));
    };
    if (path === '/health') return json(200, {});
    if (path === '/v1/models')
      return json(200, {
        object: 'list',
        data: [{ id: model, object: 'model', owned_by: 'sglang' }],
      });
    if (path === '/v1/completions') {
      return json(
        200,
        {
          id: 'c',
          object: 'text_completion',
          model,
          choices: [{ index: 0, text: 'ok', finish_reason: 'stop' }],
        },
        worker.completionHeaders,
      );
    }
    if (path === '/get_server_info') return json(200, { model_path: model }, worker.infoHeaders);
    json(404, { error: 'not found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const worker: RecordingWorker = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    completionHeaders: {},
    infoHeaders: {},
    to: (path) => requests.filter((r) => r.path === path),
    closeIdleConnections: () => server.closeIdleConnections(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return worker;
}

/**
 * POSTs JSON with node:http, which (unlike fetch) lets a test send any `Connection` header.
 * Resolves with the status, the response headers and the body text.
 */
export function rawPost(
  url: string,
  body: unknown,
  headers: OutgoingHttpHeaders,
): Promise<RawAnswer> {
  const payload = JSON.stringify(body);
  return rawRequest(url, 'POST', payload, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  });
}

/** GETs with node:http, for the same reason as `rawPost`. */
export function rawGet(url: string, headers: OutgoingHttpHeaders): Promise<RawAnswer> {
  return rawRequest(url, 'GET', undefined, headers);
}

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

function rawRequest(
  url: string,
  method: string,
  payload: string | undefined,
  headers: OutgoingHttpHeaders,
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}
