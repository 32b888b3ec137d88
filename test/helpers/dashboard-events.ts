/**
 * A reader of the dashboard's event stream for tests: connects to `<dashboard>/events`, parses the
 * server-sent events with eventsource-parser and keeps the history and every frame received.
 */
import { createParser } from 'eventsource-parser';
import type { DashboardFrame } from '../../src/dashboard/frame.js';
import { waitFor } from './wait-for.js';

export interface DashboardEvents {
  readonly history: DashboardFrame[];
  readonly frames: DashboardFrame[];
  /** Waits for a frame (from the history or live) that satisfies `test`, and returns it. */
  until(
    test: (f: DashboardFrame) => boolean,
    what: string,
    timeoutMs?: number,
  ): Promise<DashboardFrame>;
  close(): void;
}

export async function openDashboardEvents(
  dashboardUrl: string,
  headers: Record<string, string> = {},
): Promise<DashboardEvents> {
  const abort = new AbortController();
  const res = await fetch(`${dashboardUrl}/events`, { headers, signal: abort.signal });
  if (res.status !== 200 || !res.body) throw new Error(`events answered ${res.status}`);
  const history: DashboardFrame[] = [];
  const frames: DashboardFrame[] = [];
  const parser = createParser({
    onEvent(event) {
      if (event.event === 'history') history.push(...(JSON.parse(event.data) as DashboardFrame[]));
      if (event.event === 'frame') frames.push(JSON.parse(event.data) as DashboardFrame);
    },
  });
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        parser.feed(decoder.decode(chunk, { stream: true }));
      }
    } catch {
      // Aborted by close(), or the gateway went away.
    }
  })();
  return {
    history,
    frames,
    async until(test, what, timeoutMs = 10_000) {
      let found: DashboardFrame | undefined;
      await waitFor(
        () => (found = [...history, ...frames].find(test)) !== undefined,
        `a dashboard frame with ${what}`,
        timeoutMs,
      );
      return found as DashboardFrame;
    },
    close: () => abort.abort(),
  };
}
