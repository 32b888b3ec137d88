/**
 * A small fake Kubernetes API server on 127.0.0.1:0 that the real client library talks to: pod
 * lists with a resourceVersion, watches streaming ADDED/MODIFIED/DELETED as JSON lines (replayed
 * from a resourceVersion, filtered by namespace and equality label selector, as the API server's
 * watch cache does), and the failures discovery must survive: a watch from a compacted version
 * answered `410 Gone` (as an ERROR event or as HTTP 410), dropped watch connections, and failing
 * lists.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import type { PodJson } from './kube-pods.js';

export { discoveryOptions, podJson, type PodJson, type PodOptions } from './kube-pods.js';

interface LogEntry {
  rv: number;
  prev: PodJson | undefined;
  next: PodJson | undefined;
}

interface OpenWatch {
  res: ServerResponse;
  req: IncomingMessage;
  namespace: string | undefined;
  selector: Map<string, string>;
}

export interface RequestRecord {
  path: string;
  query: URLSearchParams;
  watch: boolean;
  authorization: string | undefined;
}

const key = (pod: PodJson): string => `${pod.metadata.namespace}/${pod.metadata.name}`;
const clone = (pod: PodJson): PodJson => JSON.parse(JSON.stringify(pod)) as PodJson;
const TOKEN = 'fake-token';

export class FakeKubeApi {
  readonly requests: RequestRecord[] = [];
  /** How a watch from a compacted resourceVersion is refused. */
  goneAs: 'event' | 'http' = 'event';
  #rv = 1;
  #compactedRv = 0;
  readonly #pods = new Map<string, PodJson>();
  readonly #log: LogEntry[] = [];
  readonly #watches = new Set<OpenWatch>();
  #failLists: { status: number; times: number } | undefined;
  #held: (() => void)[] | undefined;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakeKubeApi> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const api = new FakeKubeApi(server, `http://127.0.0.1:${port}`);
    server.on('request', (req, res) => api.#handle(req, res));
    return api;
  }

  /** A client configuration for this server (plain HTTP needs skipTLSVerify in client-node). */
  kubeConfig(): KubeConfig {
    const config = new KubeConfig();
    config.loadFromOptions({
      clusters: [{ name: 'fake', server: this.url, skipTLSVerify: true }],
      users: [{ name: 'fake', token: TOKEN }],
      contexts: [{ name: 'fake', cluster: 'fake', user: 'fake' }],
      currentContext: 'fake',
    });
    return config;
  }

  /** The same configuration as a kubeconfig file's text, for `$KUBECONFIG`. */
  kubeconfigYaml(): string {
    return [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: fake\n  cluster:\n    server: ${this.url}\n    insecure-skip-tls-verify: true`,
      'users:',
      `- name: fake\n  user:\n    token: ${TOKEN}`,
      'contexts:',
      '- name: fake\n  context:\n    cluster: fake\n    user: fake',
      'current-context: fake',
      '',
    ].join('\n');
  }

  listRequests(): RequestRecord[] {
    return this.requests.filter((r) => !r.watch);
  }

  watchRequests(): RequestRecord[] {
    return this.requests.filter((r) => r.watch);
  }

  get openWatches(): number {
    return this.#watches.size;
  }

  get resourceVersion(): string {
    return String(this.#rv);
  }

  /** Creates or replaces a pod: ADDED or MODIFIED to the watches it matches. */
  apply(pod: PodJson): void {
    const next = clone(pod);
    this.#record(this.#pods.get(key(next)), next);
    this.#pods.set(key(next), next);
  }

  /** Deletes a pod: DELETED to the watches it matched. */
  remove(namespace: string, name: string): void {
    const prev = this.#pods.get(`${namespace}/${name}`);
    if (!prev) return;
    this.#pods.delete(key(prev));
    this.#record(prev, undefined);
  }

  /** Forgets the history so far: a watch from an older resourceVersion is refused with 410. */
  compact(): void {
    this.#compactedRv = this.#rv;
    this.#log.length = 0;
  }

  /** Ends every open watch with an ERROR event carrying a 410 Status (history compacted under it). */
  expireWatches(): void {
    this.compact();
    for (const w of [...this.#watches]) {
      w.res.end(`${JSON.stringify({ type: 'ERROR', object: goneStatus(0, this.#rv) })}\n`);
      this.#watches.delete(w);
    }
  }

  /**
   * Holds new watch requests unanswered until the returned function is called: what happens
   * meanwhile is what a reconnecting client missed.
   */
  holdWatches(): () => void {
    this.#held = [];
    return () => {
      const held = this.#held ?? [];
      this.#held = undefined;
      for (const answer of held) answer();
    };
  }

  /** Destroys every open watch's connection, as a proxy or a restarting API server does. */
  dropWatches(): void {
    for (const w of [...this.#watches]) {
      w.req.socket.destroy();
      this.#watches.delete(w);
    }
  }

  /** The next `times` lists answer `status` with a Status body. */
  failLists(status: number, times: number): void {
    this.#failLists = { status, times };
  }

  async close(): Promise<void> {
    for (const w of this.#watches) w.res.end();
    this.#watches.clear();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  #record(prev: PodJson | undefined, next: PodJson | undefined): void {
    this.#rv += 1;
    if (next) next.metadata.resourceVersion = String(this.#rv);
    const entry = { rv: this.#rv, prev, next };
    this.#log.push(entry);
    for (const w of this.#watches) send(w, entry);
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const match = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?pods$/.exec(url.pathname);
    const watch = url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1';
    this.requests.push({
      path: url.pathname,
      query: url.searchParams,
      watch,
      authorization: req.headers.authorization,
    });
    if (req.method !== 'GET' || !match) {
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify(status(404)));
      return;
    }
    const namespace = match[1] === undefined ? undefined : decodeURIComponent(match[1]);
    const selector = parseSelector(url.searchParams.get('labelSelector') ?? '');
    const from = url.searchParams.get('resourceVersion');
    if (!watch) this.#list(res, namespace, selector);
    else if (this.#held) this.#held.push(() => this.#watch(req, res, namespace, selector, from));
    else this.#watch(req, res, namespace, selector, from);
  }

  #list(res: ServerResponse, namespace: string | undefined, selector: Map<string, string>): void {
    if (this.#failLists && this.#failLists.times > 0) {
      this.#failLists.times -= 1;
      const { status: code } = this.#failLists;
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(status(code)));
      return;
    }
    const items = [...this.#pods.values()].filter((p) => matches(p, namespace, selector));
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        kind: 'PodList',
        apiVersion: 'v1',
        metadata: { resourceVersion: String(this.#rv) },
        items,
      }),
    );
  }

  #watch(
    req: IncomingMessage,
    res: ServerResponse,
    namespace: string | undefined,
    selector: Map<string, string>,
    from: string | null,
  ): void {
    const since = from === null || from === '' ? this.#rv : Number(from);
    if (since < this.#compactedRv) {
      const body = goneStatus(since, this.#compactedRv);
      if (this.goneAs === 'http') {
        res.writeHead(410, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      } else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`${JSON.stringify({ type: 'ERROR', object: body })}\n`);
      }
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    res.flushHeaders();
    const open: OpenWatch = { req, res, namespace, selector };
    for (const entry of this.#log) if (entry.rv > since) send(open, entry);
    this.#watches.add(open);
    req.on('close', () => this.#watches.delete(open));
  }
}

/** The event one log entry is to a watch, as the watch cache turns label changes into ADDED/DELETED. */
function send(w: OpenWatch, entry: LogEntry): void {
  const before = entry.prev !== undefined && matches(entry.prev, w.namespace, w.selector);
  const after = entry.next !== undefined && matches(entry.next, w.namespace, w.selector);
  let type: string;
  if (after) type = before ? 'MODIFIED' : 'ADDED';
  else if (before) type = 'DELETED';
  else return;
  const object = entry.next ?? {
    ...entry.prev,
    metadata: { ...entry.prev?.metadata, resourceVersion: String(entry.rv) },
  };
  w.res.write(`${JSON.stringify({ type, object })}\n`);
}

function matches(
  pod: PodJson,
  namespace: string | undefined,
  selector: Map<string, string>,
): boolean {
  if (namespace !== undefined && pod.metadata.namespace !== namespace) return false;
  for (const [k, v] of selector) if (pod.metadata.labels[k] !== v) return false;
  return true;
}

function parseSelector(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const pair of text.split(',').filter(Boolean)) {
    const at = pair.indexOf('=');
    out.set(pair.slice(0, at), pair.slice(at + 1));
  }
  return out;
}

function status(code: number, message = `status ${code}`): Record<string, unknown> {
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code };
}

function goneStatus(since: number, oldest: number): Record<string, unknown> {
  return {
    ...status(410, `too old resource version: ${since} (${oldest})`),
    reason: 'Expired',
  };
}
