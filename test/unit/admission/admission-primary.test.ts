/**
 * The cluster primary's admission state, driven with plain messages: takes within the limit,
 * partial and idempotent give-backs, freed broadcasts to every process, and a process's exit
 * releasing every ticket it held at once.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AdmissionPrimary } from '../../../src/admission/store/admission-primary.js';
import type { AdmissionToWorker } from '../../../src/admission/store/cluster-protocol.js';

function setup(workers = 2) {
  const primary = new AdmissionPrimary();
  const inbox = new Map<number, AdmissionToWorker[]>();
  for (let id = 1; id <= workers; id++) {
    const box: AdmissionToWorker[] = [];
    inbox.set(id, box);
    primary.attach(id, { send: (msg) => box.push(msg) });
  }
  let nextId = 1;
  /** Sends a take from process `w` and returns the primary's answer. */
  const take = (w: number, key: string, units: number, limit: number) => {
    const id = nextId++;
    assert.equal(primary.handle(w, { t: 'sy-adm-take', id, key, units, limit }), true);
    const answer = inbox.get(w)?.at(-1);
    assert.ok(answer?.t === 'sy-adm-took' && answer.id === id, 'the take was answered');
    return answer;
  };
  const give = (w: number, ticket: number | undefined, units: number) =>
    primary.handle(w, { t: 'sy-adm-give', ticket, units });
  const freed = (w: number) =>
    (inbox.get(w) ?? []).filter((m) => m.t === 'sy-adm-freed').map((m) => `${m.key}=${m.total}`);
  return { primary, take, give, freed };
}

describe('AdmissionPrimary', () => {
  it('takes units while the total across processes stays within the limit', () => {
    const { primary, take } = setup();
    const a = take(1, 'decode:w1', 3, 4);
    assert.equal(a.total, 3);
    assert.ok(a.ticket !== undefined);
    const refused = take(2, 'decode:w1', 2, 4);
    assert.equal(refused.ticket, undefined, 'refused: 3 + 2 > 4');
    assert.equal(refused.total, 3);
    const b = take(2, 'decode:w1', 1, 4);
    assert.equal(b.total, 4);
    assert.notEqual(b.ticket, a.ticket);
    assert.equal(take(1, 'prefill:w1', 1, 1).total, 1, 'keys are counted apart');
    assert.equal(primary.total('decode:w1'), 4);
    assert.deepEqual(
      [...primary.held()],
      [
        ['decode:w1', 4],
        ['prefill:w1', 1],
      ],
    );
  });

  it('applies partial give-backs, caps them at what the ticket holds, and repeats nothing', () => {
    const { primary, take, give, freed } = setup();
    const t = take(1, 'k', 4, 8).ticket;
    take(2, 'k', 2, 8);
    give(1, t, 1);
    assert.equal(primary.total('k'), 5);
    give(1, t, 10);
    assert.equal(primary.total('k'), 2, 'capped at the 3 units left, not 10');
    give(1, t, 1);
    assert.equal(primary.total('k'), 2, 'a ticket given back in full gives nothing more');
    assert.equal(primary.ticketsOf(1), 0);
    assert.deepEqual(freed(2), ['k=5', 'k=2'], 'every give-back is broadcast with the new total');
    assert.deepEqual(freed(1), ['k=5', 'k=2'], 'the giver is told too');
  });

  it("ignores a give-back of another process's ticket", () => {
    const { primary, take, give } = setup();
    const t = take(1, 'k', 2, 8).ticket;
    give(2, t, 2);
    assert.equal(primary.total('k'), 2);
    assert.equal(primary.ticketsOf(1), 1);
  });

  it('a process that exits gives back every ticket it held, one broadcast per key', () => {
    const { primary, take, freed } = setup(3);
    take(1, 'decode:a', 1, 4);
    take(1, 'decode:a', 2, 4);
    take(1, 'prefill:b', 1, 2);
    take(2, 'decode:a', 1, 4);
    primary.detach(1);
    assert.equal(primary.total('decode:a'), 1, "process 2's unit stays");
    assert.equal(primary.total('prefill:b'), 0);
    assert.equal(primary.ticketsOf(1), 0);
    assert.deepEqual([...primary.held()], [['decode:a', 1]]);
    assert.deepEqual(freed(2), ['decode:a=1', 'prefill:b=0']);
    assert.deepEqual(freed(3), ['decode:a=1', 'prefill:b=0']);
    assert.deepEqual(freed(1), [], 'nothing is sent to the process that left');
    assert.equal(take(3, 'decode:a', 3, 4).total, 4, 'the freed units can be taken again');
  });

  it('drops admission messages from a process that left, and declines messages not its own', () => {
    const { primary, take } = setup();
    primary.detach(2);
    assert.equal(
      primary.handle(2, { t: 'sy-adm-take', id: 1, key: 'k', units: 1, limit: 1 }),
      true,
    );
    assert.equal(primary.total('k'), 0, 'a late take of a dead process holds nothing');
    assert.equal(primary.handle(1, { type: 'prom-client:getMetricsReq' }), false);
    assert.equal(primary.handle(1, 'hello'), false);
    assert.equal(primary.handle(1, { t: 'sy-adm-take', id: 2, key: 'k' }), false, 'malformed');
    assert.equal(take(1, 'k', 1, 1).total, 1);
  });
});
