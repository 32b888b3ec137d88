/**
 * The history store behind the Responses and Conversations APIs (`--history-backend`): stored
 * responses, conversations, and the items a conversation links, in memory, nowhere (`none`),
 * Redis or Postgres. One interface for every backend, so the routes and the Responses pipeline
 * never know which one runs; replicas that share a Redis or Postgres see each other's writes.
 *
 * Every method rejects with a `HistoryStoreError` when the backend cannot answer (a connection
 * refused, a timeout): the caller turns it into a 503 and never acknowledges what it could not
 * write. A write that resolved is durable in the backend (memory: until evicted or restarted).
 */
import type { JsonObject } from '../util/json.js';

export type HistoryBackend = 'memory' | 'none' | 'redis' | 'postgres';

/** A response as stored by `POST /v1/responses` (with `store` not false). */
export interface StoredResponse {
  /** `resp_…`, the id the client was given. */
  readonly id: string;
  readonly previousResponseId?: string | undefined;
  /** The conversation the response was made in (`conv_…`), if any. */
  readonly conversationId?: string | undefined;
  /**
   * The request's own input as items (a string input as one user message item), not the history
   * it continued: a chain is rebuilt from each response's input and output in turn.
   */
  readonly input: readonly JsonObject[];
  /** The response body the client got (`object: "response"`, with `output`, `status`, …). */
  readonly response: JsonObject;
  readonly model?: string | undefined;
  /** The request's `user` / `safety_identifier`. */
  readonly safetyIdentifier?: string | undefined;
  /** Unix seconds. */
  readonly createdAt: number;
}

export interface Conversation {
  /** `conv_…` */
  readonly id: string;
  /** Unix seconds. */
  readonly createdAt: number;
  /** At most 16 keys (checked by the routes, not the store); `{}` when none. */
  readonly metadata: JsonObject;
}

/** One conversation item: the item's JSON as the API shows it, and where it came from. */
export interface StoredItem {
  /** `msg_…`, `fc_…`, … (the item's own `id` when it came with one). */
  readonly id: string;
  /** The item as the API answers it, `id` and `type` included, `created_at` excluded. */
  readonly item: JsonObject;
  /** The response that produced or consumed the item, if any. */
  readonly responseId?: string | undefined;
  /** Unix seconds. */
  readonly createdAt: number;
}

export interface ListItemsQuery {
  /** At least 1; the routes cap it. */
  readonly limit: number;
  /** `asc`: in the order the items were linked; `desc`: newest first. */
  readonly order: 'asc' | 'desc';
  /** Start after this item id (in `order`); an id that is not linked yields an empty page. */
  readonly after?: string | undefined;
}

export interface ItemPage {
  readonly items: readonly StoredItem[];
  /** More items follow this page in `order`. */
  readonly hasMore: boolean;
}

export interface HistoryStore {
  readonly backend: HistoryBackend;

  putResponse(response: StoredResponse): Promise<void>;
  getResponse(id: string): Promise<StoredResponse | undefined>;
  /** False when there was no such response. */
  deleteResponse(id: string): Promise<boolean>;
  /**
   * The response `id` and the ones it continued, oldest first, following `previousResponseId`
   * through at most `maxDepth` responses; `[]` when `id` is not stored. A link to a response that
   * is gone ends the chain there.
   */
  responseChain(id: string, maxDepth: number): Promise<StoredResponse[]>;

  createConversation(conversation: Conversation): Promise<void>;
  getConversation(id: string): Promise<Conversation | undefined>;
  /** Replaces the metadata; undefined when there is no such conversation. */
  setConversationMetadata(id: string, metadata: JsonObject): Promise<Conversation | undefined>;
  /**
   * Removes the conversation record only (as SMG: its items and links stay, and the items can
   * still be linked elsewhere). False when there was no such conversation.
   */
  deleteConversation(id: string): Promise<boolean>;

  /** Creates or overwrites items by id; linking is separate. */
  putItems(items: readonly StoredItem[]): Promise<void>;
  getItem(id: string): Promise<StoredItem | undefined>;
  /**
   * Appends the items to the conversation in the given order, after every item linked before
   * (also across replicas: the order is the backend's, not a clock's). An item already linked to
   * it keeps its place.
   */
  linkItems(conversationId: string, itemIds: readonly string[]): Promise<void>;
  isLinked(conversationId: string, itemId: string): Promise<boolean>;
  listItems(conversationId: string, query: ListItemsQuery): Promise<ItemPage>;
  /** False when the item was not linked to the conversation. */
  unlinkItem(conversationId: string, itemId: string): Promise<boolean>;

  /** Whether the backend answers now (for `/readiness`); never rejects. */
  reachable(): Promise<boolean>;
  close(): Promise<void>;
}

/** The backend could not answer: a 503 `history_store_unavailable` to the client. */
export class HistoryStoreError extends Error {
  constructor(
    readonly backend: HistoryBackend,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'HistoryStoreError';
  }
}
