/**
 * An engine's self-reported load (SMG `WorkerLoadResponse`, from `/v1/loads` or parsed
 * `/metrics`), as the load monitor stores it on a worker. Aggregates follow SMG: sums over DP
 * ranks for queues and throughput, the mean for KV usage.
 */
export interface RankLoad {
  dpRank: number;
  runningReqs: number;
  waitingReqs: number;
  waitingUncachedTokens: number;
  usedTokens: number;
  maxTotalTokens: number;
  tokenUsage: number;
  genThroughput: number;
  cacheHitRate: number;
  maxRunningRequests: number;
}

export interface WorkerLoadSnapshot {
  /** Monotonic ms (the injected clock) when the report was received. */
  receivedAt: number;
  ranks: readonly RankLoad[];
}

export const sumWaitingReqs = (s: WorkerLoadSnapshot): number =>
  s.ranks.reduce((a, r) => a + r.waitingReqs, 0);
export const sumRunningReqs = (s: WorkerLoadSnapshot): number =>
  s.ranks.reduce((a, r) => a + r.runningReqs, 0);
export const sumWaitingUncachedTokens = (s: WorkerLoadSnapshot): number =>
  s.ranks.reduce((a, r) => a + r.waitingUncachedTokens, 0);
export const sumGenThroughput = (s: WorkerLoadSnapshot): number =>
  s.ranks.reduce((a, r) => a + r.genThroughput, 0);

/** Mean KV usage over DP ranks, in [0, 1]. */
export function meanTokenUsage(s: WorkerLoadSnapshot): number {
  if (s.ranks.length === 0) return 0;
  return s.ranks.reduce((a, r) => a + r.tokenUsage, 0) / s.ranks.length;
}
