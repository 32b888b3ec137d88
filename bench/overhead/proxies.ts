// nginx and haproxy as reference reverse proxies. Binaries come from PATH, or else from Debian's
// packages unpacked into .tmp/tools (apt-get download + dpkg -x): that needs no service start, no
// init system and no port 80, unlike `apt-get install`. The configs are those docs/benchmarks.md
// lists, with the whole fleet as upstream servers.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { startProcess, type Managed } from '../lib/proc.js';
import { ROOT } from '../lib/results.js';

const TOOLS = `${ROOT}.tmp/tools`;
const UNPACKED = `${TOOLS}/root`;
// haproxy's runtime libraries are not in a base image; nginx's are.
const PACKAGES = [
  'nginx',
  'haproxy',
  'liblua5.3-0',
  'libopentracing-c-wrapper0',
  'libopentracing1',
];

export interface Tool {
  bin: string;
  env: NodeJS.ProcessEnv;
  version: string;
}

function onPath(name: string): string | null {
  for (const dir of ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin']) {
    if (existsSync(`${dir}/${name}`)) return `${dir}/${name}`;
  }
  return null;
}

function unpack(): void {
  mkdirSync(TOOLS, { recursive: true });
  const download = (): void => {
    execFileSync('apt-get', ['download', ...PACKAGES], {
      cwd: TOOLS,
      stdio: 'pipe',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  };
  try {
    download();
  } catch {
    // Package lists may be missing on a fresh machine.
    execFileSync('apt-get', ['update', '-qq'], { stdio: 'pipe' });
    download();
  }
  for (const deb of readdirSync(TOOLS).filter((f) => f.endsWith('.deb'))) {
    execFileSync('dpkg', ['-x', deb, UNPACKED], { cwd: TOOLS, stdio: 'pipe' });
    rmSync(`${TOOLS}/${deb}`);
  }
}

function version(bin: string, env: NodeJS.ProcessEnv, flag: string): string {
  // nginx prints its version on stderr, haproxy on stdout.
  const out = execFileSync('sh', ['-c', `"$0" ${flag} 2>&1 | head -1`, bin], {
    env,
    encoding: 'utf8',
  });
  return out.trim();
}

/** Finds or unpacks nginx and haproxy; returns how to run each. */
export function ensureProxies(): { nginx: Tool; haproxy: Tool } {
  const local = (name: string): string => `${UNPACKED}/usr/sbin/${name}`;
  if (
    (onPath('nginx') === null && !existsSync(local('nginx'))) ||
    (onPath('haproxy') === null && !existsSync(local('haproxy')))
  ) {
    console.log('unpacking nginx and haproxy from Debian packages into .tmp/tools ...');
    unpack();
  }
  const env = { ...process.env, LD_LIBRARY_PATH: `${UNPACKED}/usr/lib/x86_64-linux-gnu` };
  const pick = (name: string, flag: string): Tool => {
    const bin = onPath(name) ?? local(name);
    const e = bin.startsWith(UNPACKED) ? env : process.env;
    return { bin, env: e, version: version(bin, e, flag) };
  };
  return { nginx: pick('nginx', '-v'), haproxy: pick('haproxy', '-v') };
}

const hostPort = (url: string): string => new URL(url).host;

/**
 * nginx with one worker process and `keepalive 256`: `keepalive 64` below the client concurrency
 * was measured to make nginx churn upstream connections, which is a config trap, not a cost.
 * Upstream keep-alive is 4 s, below the simulator's 5 s, so nginx never reuses a closing socket.
 */
export function startNginx(
  tool: Tool,
  dir: string,
  port: number,
  upstreams: readonly string[],
  cpus?: string,
): Managed {
  mkdirSync(`${dir}/ngx_tmp`, { recursive: true });
  const conf = `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/nginx-error.log warn;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${dir}/ngx_tmp/body;
  proxy_temp_path ${dir}/ngx_tmp/proxy;
  fastcgi_temp_path ${dir}/ngx_tmp/fcgi;
  uwsgi_temp_path ${dir}/ngx_tmp/uwsgi;
  scgi_temp_path ${dir}/ngx_tmp/scgi;
  keepalive_timeout 65s;
  keepalive_requests 1000000;
  upstream fleet {
${upstreams.map((u) => `    server ${hostPort(u)};`).join('\n')}
    keepalive 256;
    keepalive_requests 1000000;
    keepalive_timeout 4s;
  }
  server {
    listen 127.0.0.1:${port} backlog=4096;
    location / {
      proxy_pass http://fleet;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_buffering off;
    }
  }
}
`;
  writeFileSync(`${dir}/nginx.conf`, conf);
  return startProcess(
    'nginx',
    tool.bin,
    ['-p', `${dir}/`, '-e', `${dir}/nginx-error.log`, '-c', `${dir}/nginx.conf`],
    { cpus, env: tool.env },
  );
}

/** haproxy with one thread, `http-reuse always`, http-no-delay for SSE, and round robin. */
export function startHaproxy(
  tool: Tool,
  dir: string,
  port: number,
  upstreams: readonly string[],
  cpus?: string,
): Managed {
  const cfg = `global
  nbthread 1
  maxconn 8000
defaults
  mode http
  option http-keep-alive
  # haproxy's counterpart of nginx's proxy_buffering off: without it, it may hold a small SSE
  # chunk back (MSG_MORE) hoping to coalesce it with the next one.
  option http-no-delay
  http-reuse always
  timeout connect 5s
  timeout client 65s
  timeout server 65s
  timeout http-keep-alive 65s
frontend fe
  bind 127.0.0.1:${port}
  default_backend be
backend be
  balance roundrobin
${upstreams.map((u, i) => `  server s${i} ${hostPort(u)}`).join('\n')}
`;
  writeFileSync(`${dir}/haproxy.cfg`, cfg);
  return startProcess('haproxy', tool.bin, ['-db', '-f', `${dir}/haproxy.cfg`], {
    cpus,
    env: tool.env,
  });
}
