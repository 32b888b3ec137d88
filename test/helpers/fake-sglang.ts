/**
 * A tiny SGLang-looking engine for PD tests that need a leg to answer exactly so (a body over a
 * limit, an error inside a 2xx body, a head whose body never comes): /v1/models names it SGLang,
 * /generate calls the test's handler, anything else answers `{}`.
 */
import { createServer, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSglang {
  url: string;
  /** Requests received on /generate. */
  readonly generates: number;
  close(): Promise<void>;
}

export async function startFakeSglang(
  model: string,
  onGenerate: (res: ServerResponse) => void,
): Promise<FakeSglang> {
  let generates = 0;
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    req.resume();
    if (path === '/generate') {
      generates += 1;
      onGenerate(res);
      return;
    }
    const body =
      path === '/v1/models'
        ? { object: 'list', data: [{ id: model, object: 'model', owned_by: 'sglang' }] }
        : {};
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get generates() {
      return generates;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
