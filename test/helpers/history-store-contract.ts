/**
 * The behaviour every `HistoryStore` backend promises (src/storage/history-store.ts), as node:test
 * blocks a backend's test file registers with its own way of opening a store. One store serves
 * every test and each test makes its own ids, so a backend that keeps data between runs (Redis,
 * Postgres) needs no cleanup between tests. With `openSecond`, a second store on the same
 * backend checks that replicas sharing it see each other's writes.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';

import type {
  Conversation,
  HistoryStore,
  StoredItem,
  StoredResponse,
} from '../../src/storage/history-store.js';
import type { JsonObject } from '../../src/util/json.js';

export interface HistoryStoreContractOptions {
  /** A second store on the same backend as `open`'s, as another replica would hold. */
  readonly openSecond?: () => Promise<HistoryStore>;
}

/** JSON that trips a backend that re-encodes: nesting, unicode, every kind of number. */
export const TRICKY_JSON: JsonObject = {
  text: 'héllo “quoted” \\ back\nslash\t日本語 👋🏽 مرحبا',
  empty: '',
  ints: [0, 1, -1, 42, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER],
  floats: [0.1, -2.5, 1e-7, 1.5e300, 3.141592653589793],
  flags: [true, false, null],
  nested: { a: { b: { c: [{ d: 'deep' }, [], {}] } }, 'key with spaces': 1, ключ: 'значение' },
};

/** The fields of a stored record that hold a value: a backend may drop the undefined ones. */
function defined<T extends object>(record: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(record).filter(([, v]) => v !== undefined),
  ) as Partial<T>;
}

function assertSameRecord<T extends object>(actual: T | undefined, expected: T): void {
  assert.ok(actual !== undefined, 'expected a stored record, got undefined');
  assert.deepEqual(defined(actual), defined(expected));
}

/** Registers the contract tests for one backend under `describe(name)`. */
export function describeHistoryStoreContract(
  name: string,
  open: () => Promise<HistoryStore>,
  opts: HistoryStoreContractOptions = {},
): void {
  describe(`HistoryStore contract: ${name}`, () => {
    let store: HistoryStore;
    let second: HistoryStore | undefined;
    // A run tag keeps the ids of this run apart from what an earlier run left in a shared backend.
    const run = randomUUID().replaceAll('-', '').slice(0, 12);
    let seq = 0;
    const id = (prefix: string): string => `${prefix}_${run}${String((seq += 1)).padStart(4, '0')}`;
    const now = Math.floor(Date.now() / 1000);

    const response = (over: Partial<StoredResponse> = {}): StoredResponse => {
      const rid = over.id ?? id('resp');
      return {
        id: rid,
        input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
        response: { id: rid, object: 'response', status: 'completed', output: [] },
        model: 'test-model',
        createdAt: now,
        ...over,
      };
    };
    const conversation = (metadata: JsonObject = {}): Conversation => ({
      id: id('conv'),
      createdAt: now,
      metadata,
    });
    const item = (over: Partial<StoredItem> = {}): StoredItem => {
      const iid = over.id ?? id('msg');
      return {
        id: iid,
        item: {
          id: iid,
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: iid }],
        },
        createdAt: now,
        ...over,
      };
    };
    /** A conversation with `n` fresh items linked in order, and their ids. */
    const linkedConversation = async (n: number): Promise<{ conv: string; ids: string[] }> => {
      const conv = conversation();
      await store.createConversation(conv);
      const items = Array.from({ length: n }, () => item());
      await store.putItems(items);
      const ids = items.map((i) => i.id);
      await store.linkItems(conv.id, ids);
      return { conv: conv.id, ids };
    };
    const listIds = async (
      conv: string,
      order: 'asc' | 'desc',
      limit = 100,
      afterId?: string,
    ): Promise<{ ids: string[]; hasMore: boolean }> => {
      const page = await store.listItems(conv, { limit, order, after: afterId });
      return { ids: page.items.map((i) => i.id), hasMore: page.hasMore };
    };

    before(async () => {
      store = await open();
      if (opts.openSecond) second = await opts.openSecond();
    });
    after(async () => {
      await second?.close();
      await store?.close();
    });

    describe('responses', () => {
      it('getResponse returns what putResponse stored', async () => {
        const r = response({
          previousResponseId: id('resp'),
          conversationId: id('conv'),
          safetyIdentifier: 'user-1',
        });
        await store.putResponse(r);
        assertSameRecord(await store.getResponse(r.id), r);
      });

      it('getResponse of an unknown id is undefined', async () => {
        assert.equal(await store.getResponse(id('resp')), undefined);
      });

      it('deleteResponse removes it once: true, then false', async () => {
        const r = response();
        await store.putResponse(r);
        assert.equal(await store.deleteResponse(r.id), true);
        assert.equal(await store.getResponse(r.id), undefined);
        assert.equal(await store.deleteResponse(r.id), false);
        assert.equal(await store.deleteResponse(id('resp')), false);
      });

      it('putResponse with an existing id overwrites it', async () => {
        const r = response();
        await store.putResponse(r);
        const again = response({ id: r.id, model: 'other-model' });
        await store.putResponse(again);
        assertSameRecord(await store.getResponse(r.id), again);
      });
    });

    describe('responseChain', () => {
      const chainOf = async (n: number): Promise<StoredResponse[]> => {
        const out: StoredResponse[] = [];
        for (let i = 0; i < n; i += 1) {
          const r = response({ previousResponseId: out[i - 1]?.id });
          await store.putResponse(r);
          out.push(r);
        }
        return out;
      };
      const chainIds = async (rid: string, depth: number): Promise<string[]> =>
        (await store.responseChain(rid, depth)).map((r) => r.id);

      it('lists the response and its predecessors oldest first', async () => {
        const rs = await chainOf(4);
        const chain = await store.responseChain(rs[3]!.id, 100);
        assert.deepEqual(
          chain.map((r) => r.id),
          rs.map((r) => r.id),
        );
        for (const [i, r] of chain.entries()) assertSameRecord(r, rs[i]!);
      });

      it('keeps the newest maxDepth responses', async () => {
        const rs = await chainOf(4);
        assert.deepEqual(await chainIds(rs[3]!.id, 2), [rs[2]!.id, rs[3]!.id]);
        assert.deepEqual(await chainIds(rs[3]!.id, 1), [rs[3]!.id]);
        assert.deepEqual(
          await chainIds(rs[3]!.id, 4),
          rs.map((r) => r.id),
        );
      });

      it('starts in the middle when asked for a middle response', async () => {
        const rs = await chainOf(3);
        assert.deepEqual(await chainIds(rs[1]!.id, 100), [rs[0]!.id, rs[1]!.id]);
      });

      it('ends at a link to a response that is gone', async () => {
        const rs = await chainOf(4);
        assert.equal(await store.deleteResponse(rs[1]!.id), true);
        assert.deepEqual(await chainIds(rs[3]!.id, 100), [rs[2]!.id, rs[3]!.id]);
        const orphan = response({ previousResponseId: id('resp') });
        await store.putResponse(orphan);
        assert.deepEqual(await chainIds(orphan.id, 100), [orphan.id]);
      });

      it('is empty for an id that is not stored', async () => {
        assert.deepEqual(await store.responseChain(id('resp'), 100), []);
      });
    });

    describe('conversations', () => {
      it('getConversation returns what createConversation stored', async () => {
        const c = conversation({ topic: 'tests', n: 3 });
        await store.createConversation(c);
        assertSameRecord(await store.getConversation(c.id), c);
        const bare = conversation();
        await store.createConversation(bare);
        assertSameRecord(await store.getConversation(bare.id), bare);
      });

      it('getConversation of an unknown id is undefined', async () => {
        assert.equal(await store.getConversation(id('conv')), undefined);
      });

      it('setConversationMetadata replaces the metadata and answers the conversation', async () => {
        const c = conversation({ a: '1', b: '2' });
        await store.createConversation(c);
        const updated = await store.setConversationMetadata(c.id, { c: '3' });
        const expected = { ...c, metadata: { c: '3' } };
        assertSameRecord(updated, expected);
        assertSameRecord(await store.getConversation(c.id), expected);
        assertSameRecord(await store.setConversationMetadata(c.id, {}), { ...c, metadata: {} });
      });

      it('setConversationMetadata of an unknown id is undefined and creates nothing', async () => {
        const cid = id('conv');
        assert.equal(await store.setConversationMetadata(cid, { a: '1' }), undefined);
        assert.equal(await store.getConversation(cid), undefined);
      });

      it('deleteConversation removes the record once: true, then false', async () => {
        const c = conversation();
        await store.createConversation(c);
        assert.equal(await store.deleteConversation(c.id), true);
        assert.equal(await store.getConversation(c.id), undefined);
        assert.equal(await store.deleteConversation(c.id), false);
        assert.equal(await store.deleteConversation(id('conv')), false);
      });

      it('deleteConversation leaves its items, which can be linked elsewhere', async () => {
        const { conv, ids } = await linkedConversation(2);
        assert.equal(await store.deleteConversation(conv), true);
        for (const iid of ids) assert.equal((await store.getItem(iid))?.id, iid);
        const other = conversation();
        await store.createConversation(other);
        await store.linkItems(other.id, ids);
        assert.deepEqual((await listIds(other.id, 'asc')).ids, ids);
      });
    });

    describe('items', () => {
      it('getItem returns what putItems stored; unknown is undefined', async () => {
        const a = item({ responseId: id('resp') });
        const b = item({
          item: { id: 'x', type: 'function_call_output', call_id: 'c1', output: '{}' },
        });
        await store.putItems([a, b]);
        assertSameRecord(await store.getItem(a.id), a);
        assertSameRecord(await store.getItem(b.id), b);
        assert.equal(await store.getItem(id('msg')), undefined);
      });

      it('putItems overwrites an item by id, linked or not', async () => {
        const { conv, ids } = await linkedConversation(1);
        const replaced = item({
          id: ids[0]!,
          item: { id: ids[0]!, type: 'message', role: 'assistant' },
        });
        await store.putItems([replaced]);
        assertSameRecord(await store.getItem(ids[0]!), replaced);
        const page = await store.listItems(conv, { limit: 10, order: 'asc' });
        assert.equal(page.items.length, 1);
        assertSameRecord(page.items[0], replaced);
      });

      it('linkItems keeps the order across several calls', async () => {
        const c = conversation();
        await store.createConversation(c);
        const items = Array.from({ length: 5 }, () => item());
        await store.putItems(items);
        const ids = items.map((i) => i.id);
        await store.linkItems(c.id, ids.slice(0, 2));
        await store.linkItems(c.id, ids.slice(2, 3));
        await store.linkItems(c.id, ids.slice(3));
        assert.deepEqual((await listIds(c.id, 'asc')).ids, ids);
        assert.deepEqual((await listIds(c.id, 'desc')).ids, [...ids].reverse());
      });

      it('re-linking an item already linked keeps its place', async () => {
        const { conv, ids } = await linkedConversation(3);
        const extra = item();
        await store.putItems([extra]);
        await store.linkItems(conv, [ids[0]!, extra.id, ids[1]!]);
        assert.deepEqual((await listIds(conv, 'asc')).ids, [...ids, extra.id]);
      });

      it('isLinked tells which conversation an item is linked to', async () => {
        const { conv, ids } = await linkedConversation(1);
        const other = conversation();
        await store.createConversation(other);
        assert.equal(await store.isLinked(conv, ids[0]!), true);
        assert.equal(await store.isLinked(other.id, ids[0]!), false);
        assert.equal(await store.isLinked(conv, id('msg')), false);
        assert.equal(await store.isLinked(id('conv'), ids[0]!), false);
      });

      it('listItems pages with limit and hasMore, ascending', async () => {
        const { conv, ids } = await linkedConversation(5);
        assert.deepEqual(await listIds(conv, 'asc', 2), { ids: ids.slice(0, 2), hasMore: true });
        assert.deepEqual(await listIds(conv, 'asc', 2, ids[1]), {
          ids: ids.slice(2, 4),
          hasMore: true,
        });
        assert.deepEqual(await listIds(conv, 'asc', 2, ids[3]), { ids: [ids[4]], hasMore: false });
        assert.deepEqual(await listIds(conv, 'asc', 2, ids[4]), { ids: [], hasMore: false });
        assert.deepEqual(await listIds(conv, 'asc', 5), { ids, hasMore: false });
        assert.deepEqual(await listIds(conv, 'asc', 6), { ids, hasMore: false });
      });

      it('listItems pages with limit and hasMore, descending', async () => {
        const { conv, ids } = await linkedConversation(5);
        const rev = [...ids].reverse();
        assert.deepEqual(await listIds(conv, 'desc', 2), { ids: rev.slice(0, 2), hasMore: true });
        assert.deepEqual(await listIds(conv, 'desc', 2, rev[1]), {
          ids: rev.slice(2, 4),
          hasMore: true,
        });
        assert.deepEqual(await listIds(conv, 'desc', 2, rev[3]), { ids: [rev[4]], hasMore: false });
        assert.deepEqual(await listIds(conv, 'desc', 2, ids[0]), { ids: [], hasMore: false });
        assert.deepEqual(await listIds(conv, 'desc', 5), { ids: rev, hasMore: false });
      });

      it('listItems answers the stored items themselves', async () => {
        const c = conversation();
        await store.createConversation(c);
        const items = [item({ responseId: id('resp') }), item()];
        await store.putItems(items);
        await store.linkItems(
          c.id,
          items.map((i) => i.id),
        );
        const page = await store.listItems(c.id, { limit: 10, order: 'asc' });
        assert.equal(page.items.length, 2);
        for (const [i, got] of page.items.entries()) assertSameRecord(got, items[i]!);
      });

      it('listItems after an id that is not linked is an empty page', async () => {
        const { conv } = await linkedConversation(3);
        assert.deepEqual(await listIds(conv, 'asc', 10, id('msg')), { ids: [], hasMore: false });
        assert.deepEqual(await listIds(conv, 'desc', 10, id('msg')), { ids: [], hasMore: false });
      });

      it('listItems of a conversation with no links is empty', async () => {
        const c = conversation();
        await store.createConversation(c);
        assert.deepEqual(await listIds(c.id, 'asc'), { ids: [], hasMore: false });
        assert.deepEqual(await listIds(id('conv'), 'desc'), { ids: [], hasMore: false });
      });

      it('unlinkItem unlinks once: true, then false', async () => {
        const { conv, ids } = await linkedConversation(3);
        assert.equal(await store.unlinkItem(conv, ids[1]!), true);
        assert.equal(await store.isLinked(conv, ids[1]!), false);
        assert.deepEqual((await listIds(conv, 'asc')).ids, [ids[0], ids[2]]);
        assert.equal(await store.unlinkItem(conv, ids[1]!), false);
        assert.equal(await store.unlinkItem(conv, id('msg')), false);
        assert.equal(await store.unlinkItem(id('conv'), ids[0]!), false);
      });

      it('an unlinked item linked again goes to the end', async () => {
        const { conv, ids } = await linkedConversation(3);
        assert.equal(await store.unlinkItem(conv, ids[0]!), true);
        await store.linkItems(conv, [ids[0]!]);
        assert.deepEqual((await listIds(conv, 'asc')).ids, [ids[1], ids[2], ids[0]]);
      });

      it('an item linked to two conversations is unlinked from one only', async () => {
        const { conv, ids } = await linkedConversation(1);
        const other = conversation();
        await store.createConversation(other);
        await store.linkItems(other.id, ids);
        assert.equal(await store.unlinkItem(conv, ids[0]!), true);
        assert.equal(await store.isLinked(other.id, ids[0]!), true);
        assert.deepEqual((await listIds(other.id, 'asc')).ids, ids);
      });
    });

    describe('JSON fidelity', () => {
      it('a response keeps its input and body exactly', async () => {
        const r = response({
          input: [{ type: 'message', role: 'user', content: TRICKY_JSON }, TRICKY_JSON],
          response: { id: 'resp_x', object: 'response', output: [TRICKY_JSON], extra: TRICKY_JSON },
          safetyIdentifier: 'ünïcode-user 👋',
        });
        await store.putResponse(r);
        assertSameRecord(await store.getResponse(r.id), r);
        assertSameRecord((await store.responseChain(r.id, 10))[0], r);
      });

      it('an item keeps its JSON exactly', async () => {
        const i = item({ item: { id: 'x', type: 'message', ...TRICKY_JSON } });
        await store.putItems([i]);
        assertSameRecord(await store.getItem(i.id), i);
      });

      it('conversation metadata keeps its JSON exactly', async () => {
        const c = conversation({ text: TRICKY_JSON['text'], nested: TRICKY_JSON['nested'] });
        await store.createConversation(c);
        assertSameRecord(await store.getConversation(c.id), c);
        const updated = await store.setConversationMetadata(c.id, TRICKY_JSON);
        assertSameRecord(updated, { ...c, metadata: TRICKY_JSON });
        assertSameRecord(await store.getConversation(c.id), { ...c, metadata: TRICKY_JSON });
      });
    });

    it('reachable() is true while the backend answers', async () => {
      assert.equal(await store.reachable(), true);
    });

    if (opts.openSecond) {
      describe('two stores on one backend (replicas)', () => {
        const other = (): HistoryStore => {
          assert.ok(second);
          return second;
        };

        it('a response written by one is read, chained and deleted by the other', async () => {
          const a = response();
          await store.putResponse(a);
          const b = response({ previousResponseId: a.id });
          await other().putResponse(b);
          assertSameRecord(await other().getResponse(a.id), a);
          assert.deepEqual(
            (await store.responseChain(b.id, 10)).map((r) => r.id),
            [a.id, b.id],
          );
          assert.equal(await other().deleteResponse(a.id), true);
          assert.equal(await store.getResponse(a.id), undefined);
        });

        it('a conversation written by one is updated and deleted by the other', async () => {
          const c = conversation({ a: '1' });
          await store.createConversation(c);
          assertSameRecord(await other().getConversation(c.id), c);
          await other().setConversationMetadata(c.id, { b: '2' });
          assertSameRecord(await store.getConversation(c.id), { ...c, metadata: { b: '2' } });
          assert.equal(await other().deleteConversation(c.id), true);
          assert.equal(await store.getConversation(c.id), undefined);
        });

        it('links made through both keep one order', async () => {
          const c = conversation();
          await store.createConversation(c);
          const items = Array.from({ length: 4 }, () => item());
          await store.putItems(items.slice(0, 2));
          await other().putItems(items.slice(2));
          const ids = items.map((i) => i.id);
          await store.linkItems(c.id, [ids[0]!]);
          await other().linkItems(c.id, [ids[1]!, ids[2]!]);
          await store.linkItems(c.id, [ids[3]!, ids[1]!]);
          for (const s of [store, other()]) {
            const page = await s.listItems(c.id, { limit: 10, order: 'asc' });
            assert.deepEqual(
              page.items.map((i) => i.id),
              ids,
            );
          }
          assert.equal(await other().isLinked(c.id, ids[0]!), true);
          assert.equal(await store.unlinkItem(c.id, ids[2]!), true);
          assert.equal(await other().isLinked(c.id, ids[2]!), false);
        });
      });
    }
  });
}
