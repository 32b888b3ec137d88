// The registration guard: resolved addresses, the gateway's own listeners, --worker-allow-cidr.
// DNS is injected, so no name is looked up for real.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  WorkerTargetGuard,
  type TargetCheck,
  type TargetGuardOptions,
} from '../../../src/workers/target-guard.js';

const DNS: Record<string, string[]> = {
  'evil.example': ['10.0.0.5', '169.254.169.254'],
  'mapped.example': ['::ffff:169.254.169.254'],
  'worker.example': ['10.0.0.5'],
  'self.example': ['192.0.2.10'],
  localhost: ['127.0.0.1', '::1'],
};

function guard(opts: Partial<TargetGuardOptions> = {}): WorkerTargetGuard {
  return new WorkerTargetGuard({
    allowCidrs: [],
    lookup: (host) => {
      const found = DNS[host];
      return found ? Promise.resolve(found) : Promise.reject(new Error(`ENOTFOUND ${host}`));
    },
    localAddresses: () => ['127.0.0.1', '::1', '192.0.2.10'],
    ...opts,
  });
}

function reason(check: TargetCheck): string {
  assert.equal(check.kind, 'refused', JSON.stringify(check));
  return check.kind === 'refused' ? check.reason : '';
}

void describe('WorkerTargetGuard: resolved names', () => {
  void it('refuses a name with any link-local address among its answers, naming both', async () => {
    assert.match(
      reason(await guard().check('http://evil.example:8000')),
      /evil\.example resolves to 169\.254\.169\.254/,
    );
    assert.match(
      reason(await guard().check('http://mapped.example:8000')),
      /link-local or cloud metadata/,
    );
  });

  void it('accepts an ordinary name and leaves an unresolvable one to the registration job', async () => {
    assert.deepEqual(await guard().check('http://worker.example:8000'), { kind: 'ok' });
    assert.deepEqual(await guard().check('http://not-yet.example:8000'), { kind: 'unresolved' });
  });
});

void describe('WorkerTargetGuard: the gateway’s own listeners', () => {
  void it('refuses the exact listen and metrics addresses, by bound port', async () => {
    const g = guard();
    g.addOwnListener({ name: 'listen', host: '127.0.0.1', port: 30000 });
    g.addOwnListener({ name: 'metrics', host: '127.0.0.1', port: 29000 });
    assert.match(reason(await g.check('http://127.0.0.1:30000')), /own listen address/);
    assert.match(reason(await g.check('http://127.0.0.1:29000/metrics')), /own metrics address/);
    assert.match(reason(await g.check('http://[::ffff:127.0.0.1]:30000')), /own listen address/);
    assert.match(
      reason(await g.check('http://0.0.0.0:30000')),
      /own listen address/,
      'the unspecified address reaches every local listener',
    );
    assert.deepEqual(await g.check('http://127.0.0.1:30001'), { kind: 'ok' });
    assert.deepEqual(
      await g.check('http://127.0.0.2:30000'),
      { kind: 'ok' },
      'a socket bound to 127.0.0.1 is not reached at 127.0.0.2',
    );
  });

  void it('treats a wildcard listen host as loopback plus every interface address', async () => {
    const g = guard();
    g.addOwnListener({ name: 'listen', host: '0.0.0.0', port: 30000 });
    for (const url of [
      'http://127.0.0.1:30000',
      'http://127.1.2.3:30000',
      'http://[::1]:30000',
      'http://192.0.2.10:30000',
      'http://self.example:30000',
      'http://localhost:30000',
    ]) {
      assert.match(reason(await g.check(url)), /own listen address/, url);
    }
    assert.deepEqual(await g.check('http://10.0.0.5:30000'), { kind: 'ok' });
  });
});

void describe('WorkerTargetGuard: --worker-allow-cidr', () => {
  void it('admits addresses inside a range and refuses those outside, literal or resolved', async () => {
    const g = guard({ allowCidrs: ['10.0.0.0/8', 'fd00::/8'] });
    assert.deepEqual(await g.check('http://10.1.2.3:8000'), { kind: 'ok' });
    assert.deepEqual(await g.check('http://[fd12::1]:8000'), { kind: 'ok' });
    assert.deepEqual(await g.check('http://worker.example:8000'), { kind: 'ok' });
    assert.match(
      reason(await g.check('http://192.168.0.1:8000')),
      /--worker-allow-cidr \(192\.168\.0\.1\)/,
    );
    assert.match(
      reason(await g.check('http://self.example:8000')),
      /--worker-allow-cidr \(self\.example resolves to 192\.0\.2\.10\)/,
    );
  });

  void it('does not widen the link-local refusal', async () => {
    const g = guard({ allowCidrs: ['0.0.0.0/0'] });
    assert.match(reason(await g.check('http://169.254.169.254')), /link-local/);
  });
});
