/**
 * `--history-backend none`: SMG's no-op store. Every write succeeds and is forgotten, every read
 * finds nothing, so a stored response is never found again and a conversation is never found
 * after it was created, exactly as with SMG's `none`.
 */
import type {
  Conversation,
  HistoryStore,
  ItemPage,
  StoredItem,
  StoredResponse,
} from './history-store.js';

export class NoneHistoryStore implements HistoryStore {
  readonly backend = 'none' as const;

  putResponse(): Promise<void> {
    return Promise.resolve();
  }

  getResponse(): Promise<StoredResponse | undefined> {
    return Promise.resolve(undefined);
  }

  deleteResponse(): Promise<boolean> {
    return Promise.resolve(false);
  }

  responseChain(): Promise<StoredResponse[]> {
    return Promise.resolve([]);
  }

  createConversation(): Promise<void> {
    return Promise.resolve();
  }

  getConversation(): Promise<Conversation | undefined> {
    return Promise.resolve(undefined);
  }

  setConversationMetadata(): Promise<Conversation | undefined> {
    return Promise.resolve(undefined);
  }

  deleteConversation(): Promise<boolean> {
    return Promise.resolve(false);
  }

  putItems(): Promise<void> {
    return Promise.resolve();
  }

  getItem(): Promise<StoredItem | undefined> {
    return Promise.resolve(undefined);
  }

  linkItems(): Promise<void> {
    return Promise.resolve();
  }

  isLinked(): Promise<boolean> {
    return Promise.resolve(false);
  }

  listItems(): Promise<ItemPage> {
    return Promise.resolve({ items: [], hasMore: false });
  }

  unlinkItem(): Promise<boolean> {
    return Promise.resolve(false);
  }

  /** Nothing to reach: always ready. */
  reachable(): Promise<boolean> {
    return Promise.resolve(true);
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}
