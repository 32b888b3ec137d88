// The memory backend against the contract every history store keeps.
import { MemoryHistoryStore } from '../../../src/storage/memory-history-store.js';
import { describeHistoryStoreContract } from '../../helpers/history-store-contract.js';

const limits = { maxResponses: 10_000, maxConversations: 10_000 };

describeHistoryStoreContract('memory', () => Promise.resolve(new MemoryHistoryStore(limits)));

// One store seen through two handles: the replica half of the contract, on a backend where it
// holds by construction, so a failure there points at the contract rather than a backend.
const shared = new MemoryHistoryStore(limits);
describeHistoryStoreContract('memory, one store as two replicas', () => Promise.resolve(shared), {
  openSecond: () => Promise.resolve(shared),
});
