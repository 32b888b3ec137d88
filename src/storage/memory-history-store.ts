/**
 * `--history-backend memory`: the history store in this process's memory, lost on restart and
 * private to the replica. Unlike SMG's unbounded maps it holds at most
 * `--history-memory-max-responses` responses and `--history-memory-max-conversations`
 * conversations, dropping the oldest first (by when each was first written), so a long-running
 * gateway cannot grow without end. A dropped response ends any chain that reached it; a dropped
 * conversation takes its links, and every item it leaves linked nowhere.
 *
 * Records are kept as JSON text: each read hands the caller its own copy (a caller that edits
 * what it read cannot change the store), and a value survives exactly as it would through Redis
 * or Postgres (an `undefined` field is dropped, not kept).
 */
import type {
  Conversation,
  HistoryStore,
  ItemPage,
  ListItemsQuery,
  StoredItem,
  StoredResponse,
} from './history-store.js';
import { LinkList } from './memory-link-list.js';
import type { JsonObject } from '../util/json.js';

/** The bounds of the memory store, each a count of at least 1. */
export interface MemoryHistoryLimits {
  /** `--history-memory-max-responses` */
  readonly maxResponses: number;
  /**
   * `--history-memory-max-conversations`. It also bounds the items linked nowhere (stored and
   * not linked yet, or unlinked), which a conversation's eviction cannot reach.
   */
  readonly maxConversations: number;
}

interface ResponseEntry {
  readonly previousResponseId: string | undefined;
  readonly json: string;
}

interface ConversationEntry {
  /** Undefined once the conversation is deleted: its links stay until the entry is evicted. */
  record: { readonly createdAt: number; metadata: string } | undefined;
  readonly links: LinkList;
}

interface ItemEntry {
  json: string;
  /** How many conversations link the item. */
  links: number;
}

export class MemoryHistoryStore implements HistoryStore {
  readonly backend = 'memory' as const;
  readonly #limits: MemoryHistoryLimits;
  // Maps iterate in insertion order, so each map's first key is its oldest entry.
  readonly #responses = new Map<string, ResponseEntry>();
  readonly #conversations = new Map<string, ConversationEntry>();
  readonly #items = new Map<string, ItemEntry>();
  /** Ids of the items linked nowhere, oldest first. */
  readonly #unlinked = new Set<string>();

  constructor(limits: MemoryHistoryLimits) {
    for (const name of ['maxResponses', 'maxConversations'] as const)
      if (!Number.isSafeInteger(limits[name]) || limits[name] < 1)
        throw new RangeError(`MemoryHistoryStore: ${name} must be a whole number of at least 1`);
    this.#limits = limits;
  }

  putResponse(response: StoredResponse): Promise<void> {
    // Deleting first makes an overwrite count as the newest write.
    this.#responses.delete(response.id);
    this.#responses.set(response.id, {
      previousResponseId: response.previousResponseId,
      json: JSON.stringify(response),
    });
    while (this.#responses.size > this.#limits.maxResponses) {
      const oldest = this.#responses.keys().next().value;
      if (oldest === undefined) break;
      this.#responses.delete(oldest);
    }
    return Promise.resolve();
  }

  getResponse(id: string): Promise<StoredResponse | undefined> {
    const entry = this.#responses.get(id);
    return Promise.resolve(entry && (JSON.parse(entry.json) as StoredResponse));
  }

  deleteResponse(id: string): Promise<boolean> {
    return Promise.resolve(this.#responses.delete(id));
  }

  responseChain(id: string, maxDepth: number): Promise<StoredResponse[]> {
    const chain: StoredResponse[] = [];
    for (let at: string | undefined = id; at !== undefined && chain.length < maxDepth;) {
      const entry = this.#responses.get(at);
      if (!entry) break;
      chain.push(JSON.parse(entry.json) as StoredResponse);
      at = entry.previousResponseId;
    }
    return Promise.resolve(chain.reverse());
  }

  createConversation(conversation: Conversation): Promise<void> {
    const record = {
      createdAt: conversation.createdAt,
      metadata: JSON.stringify(conversation.metadata),
    };
    const entry = this.#conversations.get(conversation.id);
    if (entry) entry.record = record;
    else this.#addConversation(conversation.id, { record, links: new LinkList() });
    return Promise.resolve();
  }

  getConversation(id: string): Promise<Conversation | undefined> {
    return Promise.resolve(this.#conversation(id));
  }

  setConversationMetadata(id: string, metadata: JsonObject): Promise<Conversation | undefined> {
    const record = this.#conversations.get(id)?.record;
    if (record) record.metadata = JSON.stringify(metadata);
    return Promise.resolve(this.#conversation(id));
  }

  deleteConversation(id: string): Promise<boolean> {
    const entry = this.#conversations.get(id);
    if (!entry?.record) return Promise.resolve(false);
    entry.record = undefined;
    if (entry.links.size === 0) this.#conversations.delete(id);
    return Promise.resolve(true);
  }

  putItems(items: readonly StoredItem[]): Promise<void> {
    // Trimmed before the new items arrive, so a batch larger than the bound still survives
    // until the caller links it.
    this.#trimUnlinked(items.length);
    for (const item of items) {
      const json = JSON.stringify(item);
      const entry = this.#items.get(item.id);
      if (entry) entry.json = json;
      else {
        this.#items.set(item.id, { json, links: 0 });
        this.#unlinked.add(item.id);
      }
    }
    return Promise.resolve();
  }

  getItem(id: string): Promise<StoredItem | undefined> {
    const entry = this.#items.get(id);
    return Promise.resolve(entry && (JSON.parse(entry.json) as StoredItem));
  }

  /** Ids of items that are not stored (never put, or dropped) are skipped. */
  linkItems(conversationId: string, itemIds: readonly string[]): Promise<void> {
    let entry = this.#conversations.get(conversationId);
    if (!entry) {
      entry = { record: undefined, links: new LinkList() };
      this.#addConversation(conversationId, entry);
    }
    for (const id of itemIds) {
      const item = this.#items.get(id);
      if (!item || !entry.links.append(id)) continue;
      item.links += 1;
      this.#unlinked.delete(id);
    }
    return Promise.resolve();
  }

  isLinked(conversationId: string, itemId: string): Promise<boolean> {
    return Promise.resolve(this.#conversations.get(conversationId)?.links.has(itemId) ?? false);
  }

  listItems(conversationId: string, query: ListItemsQuery): Promise<ItemPage> {
    const links = this.#conversations.get(conversationId)?.links;
    if (!links) return Promise.resolve({ items: [], hasMore: false });
    const { ids, hasMore } = links.page(query.limit, query.order, query.after);
    const items: StoredItem[] = [];
    // Every linked id has its item: an item is dropped only once no conversation links it.
    for (const id of ids) {
      const entry = this.#items.get(id);
      if (entry) items.push(JSON.parse(entry.json) as StoredItem);
    }
    return Promise.resolve({ items, hasMore });
  }

  unlinkItem(conversationId: string, itemId: string): Promise<boolean> {
    const entry = this.#conversations.get(conversationId);
    if (!entry?.links.remove(itemId)) return Promise.resolve(false);
    if (!entry.record && entry.links.size === 0) this.#conversations.delete(conversationId);
    const item = this.#items.get(itemId);
    if (item && (item.links -= 1) === 0) {
      // Kept, as SMG keeps it, so the same id can be linked again; bounded with the others.
      this.#trimUnlinked(1);
      this.#unlinked.add(itemId);
    }
    return Promise.resolve(true);
  }

  reachable(): Promise<boolean> {
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    this.#responses.clear();
    this.#conversations.clear();
    this.#items.clear();
    this.#unlinked.clear();
    return Promise.resolve();
  }

  #conversation(id: string): Conversation | undefined {
    const record = this.#conversations.get(id)?.record;
    if (!record) return undefined;
    const metadata = JSON.parse(record.metadata) as JsonObject;
    return { id, createdAt: record.createdAt, metadata };
  }

  #addConversation(id: string, entry: ConversationEntry): void {
    this.#conversations.set(id, entry);
    while (this.#conversations.size > this.#limits.maxConversations) {
      const oldest = this.#conversations.entries().next().value;
      if (oldest === undefined) break;
      this.#evictConversation(oldest[0], oldest[1]);
    }
  }

  /** Costs one step per link it drops, each paid for once by the link call that made it. */
  #evictConversation(id: string, entry: ConversationEntry): void {
    this.#conversations.delete(id);
    for (const itemId of entry.links) {
      const item = this.#items.get(itemId);
      if (item && (item.links -= 1) === 0) this.#items.delete(itemId);
    }
  }

  /** Drops the oldest unlinked items until `room` more fit in the bound. */
  #trimUnlinked(room: number): void {
    const keep = Math.max(0, this.#limits.maxConversations - room);
    while (this.#unlinked.size > keep) {
      const oldest = this.#unlinked.values().next().value;
      if (oldest === undefined) break;
      this.#unlinked.delete(oldest);
      this.#items.delete(oldest);
    }
  }
}
