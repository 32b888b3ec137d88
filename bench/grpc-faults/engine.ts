// One simulated gRPC engine in a process of its own, so the storm can stop it (SIGSTOP) as an
// engine that freezes for a few seconds, with a small HTTP side port the storm reads and steers
// it through: GET /counts (open and peak Generates, Abort ids), POST /faults (SimFaults JSON).
//
//   node --import tsx bench/grpc-faults/engine.ts '<SimWorkerOptions JSON>'
// prints one line `ENGINE {"url","bootstrapPort","control"}` once it listens.
import { createServer } from 'node:http';
import { startSimWorker, type SimFaults, type SimWorkerOptions } from '@switchyard/sim';
import { engineCounts } from '../../test/helpers/grpc-storm-engines.js';

const opts = JSON.parse(process.argv[2] ?? '{}') as SimWorkerOptions;
const worker = await startSimWorker({ ...opts, protocol: 'grpc', port: 0 });

const control = createServer((req, res) => {
  const reply = (status: number, body: unknown): void => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  if (req.method === 'GET' && req.url === '/counts') {
    reply(200, engineCounts(worker));
    return;
  }
  if (req.method === 'POST' && req.url === '/faults') {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      worker.setFaults(JSON.parse(text) as SimFaults);
      reply(200, { ok: true });
    });
    return;
  }
  reply(404, { error: 'no such route' });
});
control.listen(0, '127.0.0.1', () => {
  const address = control.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  console.log(
    `ENGINE ${JSON.stringify({ url: worker.url, bootstrapPort: worker.bootstrapPort, control: `http://127.0.0.1:${port}` })}`,
  );
});

const stop = (): void => {
  control.close();
  void worker.close().then(() => process.exit(0));
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
