/**
 * The ClusterStore of a gateway process, talking to a real AdmissionPrimary over an in-memory
 * channel that delivers asynchronously, as IPC does: the limit is exact across processes, `seen`
 * and `onFreed` follow the primary's broadcasts, and a closed channel falls back to local limits.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdmissionPrimary } from '../../../src/admission/store/admission-primary.js';
import { EventEmitter } from 'node:events';
import {
  ClusterStore,
  clusterStoreIfWorker,
  processChannel,
} from '../../../src/admission/store/cluster-store.js';
import { fakeLink, settle } from '../../helpers/fake-ipc.js';

function twoProcesses() {
  const primary = new AdmissionPrimary();
  const links = [fakeLink(primary, 1), fakeLink(primary, 2)] as const;
  const stores = [new ClusterStore(links[0].channel), new ClusterStore(links[1].channel)] as const;
  return { primary, links, stores };
}

describe('ClusterStore', () => {
  it('is an asynchronous store of kind cluster, up while the channel is open', () => {
    const { stores } = twoProcesses();
    assert.equal(stores[0].kind, 'cluster');
    assert.equal(stores[0].synchronous, false);
    assert.equal(stores[0].up, true);
  });

  it('racing takes from two processes never exceed the limit together', async () => {
    const { primary, stores } = twoProcesses();
    const results = await Promise.all(
      Array.from({ length: 10 }, async (_, i) => stores[i % 2]?.tryTake('decode:w', 1, 4)),
    );
    assert.equal(results.filter((r) => r?.ticket !== undefined).length, 4);
    assert.equal(primary.total('decode:w'), 4);
    assert.equal(stores[0].seen('decode:w'), 4);
  });

  it("wakes waiters in every process on another process's give-back, with the new total", async () => {
    const { primary, stores } = twoProcesses();
    const a = await stores[0].tryTake('k', 2, 2);
    assert.ok(a.ticket);
    const refused = await stores[1].tryTake('k', 1, 2);
    assert.equal(refused.ticket, undefined);
    assert.equal(stores[1].seen('k'), 2, 'seen from the refusal');
    const woken: string[] = [];
    stores[1].onFreed((key) => woken.push(key));
    stores[0].giveBack(a.ticket, 1);
    stores[0].giveBack(a.ticket, 1);
    stores[0].giveBack(a.ticket, 1);
    await settle();
    assert.deepEqual(woken, ['k', 'k'], 'two give-backs; the third had nothing left to return');
    assert.equal(primary.total('k'), 0);
    assert.equal(stores[1].seen('k'), 0);
    assert.ok((await stores[1].tryTake('k', 2, 2)).ticket);
  });

  it('two stores on one channel each get their own answers', async () => {
    const primary = new AdmissionPrimary();
    const link = fakeLink(primary, 1);
    const decode = new ClusterStore(link.channel);
    const prefill = new ClusterStore(link.channel);
    const [d, p] = await Promise.all([decode.tryTake('d', 1, 1), prefill.tryTake('p', 1, 1)]);
    assert.equal(d.ticket?.key, 'd');
    assert.equal(p.ticket?.key, 'p');
  });

  it('when the primary goes away: down, pending takes answered locally, give-backs dropped', async () => {
    const { primary, links, stores } = twoProcesses();
    const held = await stores[0].tryTake('k', 1, 2);
    assert.ok(held.ticket);
    const ups: boolean[] = [];
    stores[0].onUpChange((up) => ups.push(up));
    const pending = stores[0].tryTake('k', 2, 2);
    links[0].close();
    assert.equal(stores[0].up, false);
    assert.deepEqual(ups, [false]);
    const answered = await pending;
    assert.ok(answered.ticket, "answered from this process's own limit (nothing held locally)");
    const third = await stores[0].tryTake('k', 1, 2);
    assert.equal(third.ticket, undefined, 'the local fallback counts its own takes');
    stores[0].giveBack(held.ticket, 1);
    await settle();
    assert.equal(primary.total('k'), 1, 'a give-back after the close is not sent');
    const woken: string[] = [];
    stores[0].onFreed((key) => woken.push(key));
    stores[0].giveBack(answered.ticket, 2);
    assert.deepEqual(woken, ['k'], 'fallback give-backs wake local waiters');
    assert.equal(stores[0].seen('k'), 0);
  });

  it('close answers takes still on the way as refused and stops listening', async () => {
    const { stores } = twoProcesses();
    const pending = stores[0].tryTake('k', 1, 1);
    await stores[0].close();
    assert.equal((await pending).ticket, undefined);
    const after = await stores[0].tryTake('k', 1, 1);
    assert.equal(after.ticket, undefined);
  });

  it('clusterStoreIfWorker gives a store only in a process forked by the cluster primary', () => {
    assert.equal(clusterStoreIfWorker(), undefined, 'the test runner is no gateway process');
  });

  it('a take whose IPC send fails is answered by the fallback instead of waiting forever', async () => {
    // A process whose channel still reads connected but whose sends fail (closing underneath).
    const proc = Object.assign(new EventEmitter(), {
      connected: true,
      send: (_msg: unknown, _h: unknown, _o: unknown, cb: (err: Error | null) => void) => {
        setImmediate(() => cb(new Error('ERR_IPC_CHANNEL_CLOSED')));
        return false;
      },
    });
    const store = new ClusterStore(processChannel(proc as unknown as NodeJS.Process));
    const result = await store.tryTake('decode:w', 1, 4);
    assert.ok(result.ticket, 'granted by the local fallback');
    assert.equal(store.up, false);
  });
});
