/**
 * Adding items to a conversation, in two steps: `planItems` checks every posted item and makes
 * every read it needs, writing nothing, so a refused item or a store that fails mid-way leaves
 * nothing half-added; `commitItems` then stores the new items and links them all in one call each.
 * The rules are SMG's (`create_conversation_items`): an item is a new item, an existing item
 * posted again by id, or an `item_reference` to an existing one.
 */
import { itemTypeOf, storedItemOf } from '../../storage/conversation-items.js';
import type { HistoryStore, StoredItem } from '../../storage/history-store.js';
import { isJsonObject, type JsonObject } from '../../util/json.js';
import { badRequest, ConversationProblem, notFound } from './history-io.js';

/** SMG's `MAX_ITEMS_PER_REQUEST`. */
export const MAX_ITEMS_PER_REQUEST = 20;

/** The item types SMG stores (`SUPPORTED_ITEM_TYPES`); any other is a 400. */
const SUPPORTED = [
  'message',
  'reasoning',
  'mcp_list_tools',
  'mcp_call',
  'item_reference',
  'function_call',
  'function_call_output',
  'file_search_call',
  'computer_call',
  'computer_call_output',
  'web_search_call',
  'image_generation_call',
  'code_interpreter_call',
  'local_shell_call',
  'local_shell_call_output',
  'mcp_approval_request',
  'mcp_approval_response',
  'custom_tool_call',
  'custom_tool_call_output',
] as const;
const SUPPORTED_SET: ReadonlySet<string> = new Set(SUPPORTED);

/** The types SMG calls implemented; the others are stored with a warning in the answer. */
const IMPLEMENTED: ReadonlySet<string> = new Set([
  'message',
  'reasoning',
  'mcp_list_tools',
  'mcp_call',
  'item_reference',
]);

export interface ItemPlan {
  /** Each posted item's answer, in order (an item posted twice answers twice). */
  readonly data: readonly JsonObject[];
  /** New items to store. */
  readonly put: readonly StoredItem[];
  /** Every item to link, once each, in posted order. */
  readonly link: readonly string[];
  readonly warnings: readonly string[];
}

/** A new item from its posted JSON, or the reason it is refused (SMG's messages). */
function newItem(
  item: JsonObject,
  type: string,
  now: number,
): { stored: StoredItem; warning?: string } | ConversationProblem {
  if (!SUPPORTED_SET.has(type)) {
    return badRequest(`Unsupported item type '${type}'. Supported types: ${SUPPORTED.join(', ')}`);
  }
  if (type === 'message' && typeof item.role !== 'string') {
    return badRequest("Message items require 'role' field");
  }
  const stored = storedItemOf(item, now);
  if (IMPLEMENTED.has(type)) return { stored };
  return {
    stored,
    warning:
      `Item type '${type}' is accepted but not yet implemented. ` +
      'The item will be stored but may not function as expected.',
  };
}

/**
 * Checks `items` (a body's `items` field) for `conversationId` (undefined for a conversation not
 * yet created, where no item can already be linked) and reads what it refers to. An item posted
 * earlier in the same request counts as existing, as it does in SMG, which writes as it goes.
 */
export async function planItems(
  store: HistoryStore,
  conversationId: string | undefined,
  items: unknown,
  now: number,
): Promise<ItemPlan | ConversationProblem> {
  if (!Array.isArray(items)) return badRequest("Missing or invalid 'items' field");
  if (items.length > MAX_ITEMS_PER_REQUEST) {
    return badRequest(`Cannot add more than ${MAX_ITEMS_PER_REQUEST} items at a time`);
  }
  const data: JsonObject[] = [];
  const put: StoredItem[] = [];
  const pending = new Map<string, StoredItem>();
  const link = new Set<string>();
  const warnings: string[] = [];
  const existing = async (id: string): Promise<StoredItem | undefined> =>
    pending.get(id) ?? (await store.getItem(id));
  for (const posted of items as unknown[]) {
    if (!isJsonObject(posted)) return badRequest('Each item must be a JSON object');
    const type = itemTypeOf(posted);
    const id = typeof posted.id === 'string' && posted.id !== '' ? posted.id : undefined;
    let answer: StoredItem;
    if (type === 'item_reference') {
      if (id === undefined) return badRequest("item_reference requires 'id' field");
      const found = await existing(id);
      if (found === undefined) return notFound(`Referenced item '${id}' not found`);
      answer = found;
    } else {
      if (
        id !== undefined &&
        conversationId !== undefined &&
        (await store.isLinked(conversationId, id))
      ) {
        return new ConversationProblem(
          'item_already_in_conversation',
          'Item already in conversation',
        );
      }
      // An id the store already holds links that item; what was posted with it is not stored.
      const found = id === undefined ? undefined : await existing(id);
      if (found !== undefined) answer = found;
      else {
        const made = newItem(posted, type, now);
        if (made instanceof ConversationProblem) return made;
        answer = made.stored;
        put.push(made.stored);
        pending.set(made.stored.id, made.stored);
        if (made.warning !== undefined) warnings.push(made.warning);
      }
    }
    data.push(answer.item);
    link.add(answer.id);
  }
  return { data, put, link: [...link], warnings };
}

/** Stores the plan's new items, then links every planned item to the conversation. */
export async function commitItems(
  store: HistoryStore,
  conversationId: string,
  plan: ItemPlan,
): Promise<void> {
  if (plan.put.length > 0) await store.putItems(plan.put);
  if (plan.link.length > 0) await store.linkItems(conversationId, plan.link);
}
