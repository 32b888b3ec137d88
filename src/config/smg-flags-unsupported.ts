/**
 * SMG `launch` flags of subsystems Switchyard does not have. Each is parsed with SMG's type, then
 * refused with one line naming the flag and the subsystem, so a copied SMG command line fails
 * loudly instead of running without the feature it asks for. Lines are SMG's
 * model_gateway/src/main.rs at f8daa883.
 */
import { isIP } from 'node:net';
import type { FlagKind } from '@switchyard/kit';
import { consumeUrlPort } from './consume-url-port.js';
import { boolDefault, keyOf, u16, u32, u64, type GatewayFlag } from './flag-status.js';

type UnsupportedFlag = Extract<GatewayFlag, { status: 'unsupported' }>;

interface Options {
  readonly default?: string | number | boolean;
  readonly choices?: readonly string[];
  readonly check?: (value: string) => string | undefined;
  readonly consume?: (rest: readonly string[]) => { value: unknown; used: number };
}

function unsupported(
  name: string,
  kind: FlagKind,
  subsystem: string,
  help: string,
  options: Options = {},
): UnsupportedFlag {
  return {
    name,
    key: keyOf(name),
    kind,
    help: `(unsupported) ${help}`,
    status: 'unsupported',
    subsystem,
    ...boolDefault(kind),
    ...options,
  };
}

const MESH = 'the HA mesh';
// History storage itself is implemented (flags-history.ts); these are the parts of SMG's that are not.
const ORACLE = 'the Oracle history backend';
const JWT = 'JWT/OIDC authentication';
const EPD = 'encode-prefill-decode (EPD) disaggregation';
const PRIORITY = 'the priority scheduler';

function ipAddress(value: string): string | undefined {
  return isIP(value) === 0 ? 'expects an IP address' : undefined;
}

export const UNSUPPORTED_FLAGS: readonly UnsupportedFlag[] = [
  // EPD (main.rs:465, 481; --encode hand-parsed at 73-75)
  unsupported('epd-disaggregation', 'bool', EPD, 'EPD mode'),
  unsupported('encode-policy', 'enum', EPD, 'Encode-leg policy', {
    choices: ['random', 'round_robin', 'consistent_hashing'],
  }),
  unsupported('encode', 'list', EPD, 'Encode worker [bootstrap port]', {
    consume: consumeUrlPort('encode'),
  }),
  // Service discovery of encode pods and mesh peers (main.rs:586, 598); the rest of the group
  // is implemented (flags-discovery.ts).
  unsupported('encode-selector', 'list', EPD, 'Encode pod selector'),
  unsupported('router-selector', 'list', MESH, 'Mesh peer pod selector'),
  // Request handling and tenancy (main.rs:646-654)
  unsupported(
    'storage-context-headers',
    'list',
    'storage context headers',
    'Headers mapped into storage context',
  ),
  unsupported('trust-tenant-header', 'bool', 'tenant identity', 'Trust an upstream tenant header'),
  unsupported('tenant-header-name', 'string', 'tenant identity', 'Tenant header name', {
    default: 'x-smg-tenant-id',
  }),
  // Admission (main.rs:723-747)
  unsupported('priority-scheduler-enabled', 'bool', PRIORITY, 'Priority admission'),
  unsupported('priority-scheduler-default-max-class', 'string', PRIORITY, 'Default class cap', {
    default: 'default',
  }),
  unsupported('priority-scheduler-config', 'string', PRIORITY, 'Scheduler YAML'),
  unsupported('priority-scheduler-tenant-metric-top-n', 'int', PRIORITY, 'Tenant label cap', {
    default: 32,
    check: u32,
  }),
  unsupported('tenant-rate-limit-enabled', 'bool', 'per-tenant rate limiting', 'Per-tenant limits'),
  unsupported(
    'tenant-rate-limit-config',
    'string',
    'per-tenant rate limiting',
    'Tenant limit YAML',
  ),
  // MCP (main.rs:890)
  unsupported('mcp-config-path', 'string', 'MCP tool execution', 'MCP servers config'),
  // Storage and WASM (main.rs:903-953); the Postgres and Redis flags are in flags-history.ts
  unsupported('enable-wasm', 'bool', 'WASM plugins', 'WASM support'),
  unsupported('storage-hook-wasm-path', 'string', 'WASM plugins', 'Storage hook module'),
  unsupported('schema-config', 'string', 'storage schema remapping', 'Storage schema remap'),
  unsupported('oracle-wallet-path', 'string', ORACLE, 'Oracle wallet'),
  unsupported('oracle-tns-alias', 'string', ORACLE, 'Oracle TNS alias'),
  unsupported('oracle-dsn', 'string', ORACLE, 'Oracle DSN'),
  unsupported('oracle-user', 'string', ORACLE, 'Oracle user'),
  unsupported('oracle-password', 'string', ORACLE, 'Oracle password'),
  unsupported('oracle-external-auth', 'bool', ORACLE, 'Oracle external auth'),
  unsupported('oracle-pool-min', 'int', ORACLE, 'Oracle pool min', { check: u64 }),
  unsupported('oracle-pool-max', 'int', ORACLE, 'Oracle pool max', { check: u64 }),
  unsupported('oracle-pool-timeout-secs', 'int', ORACLE, 'Oracle pool timeout', { check: u64 }),
  // TLS (main.rs:980-985)
  unsupported('tls-cert-path', 'string', 'TLS termination', 'Server certificate'),
  unsupported('tls-key-path', 'string', 'TLS termination', 'Server key'),
  // Authentication beyond --api-key (main.rs:1012-1048)
  unsupported('tenant-api-key', 'append', 'per-tenant API keys', 'tenant_id:key'),
  unsupported('jwt-issuer', 'string', JWT, 'OIDC issuer'),
  unsupported('jwt-audience', 'string', JWT, 'JWT audience'),
  unsupported('jwt-jwks-uri', 'string', JWT, 'JWKS URI'),
  unsupported('jwt-role-claim', 'string', JWT, 'Role claim', { default: 'roles' }),
  unsupported('jwt-role-mapping', 'append', JWT, 'idp_role=gateway_role'),
  // Mesh (main.rs:1064-1082)
  unsupported('enable-mesh', 'bool', MESH, 'Enable the HA mesh'),
  unsupported('mesh-server-name', 'string', MESH, 'Mesh node name'),
  unsupported('mesh-host', 'string', MESH, 'Mesh bind address', { default: '0.0.0.0' }),
  unsupported('mesh-advertise-host', 'string', MESH, 'Advertised mesh address'),
  unsupported('mesh-port', 'int', MESH, 'Mesh port', { default: 39527, check: u16 }),
  unsupported('mesh-peer-urls', 'list', MESH, 'Mesh seed peers'),
  // WebRTC (main.rs:1089-1096)
  unsupported('webrtc-bind-addr', 'string', 'realtime WebRTC', 'WebRTC UDP bind address', {
    check: ipAddress,
  }),
  unsupported('webrtc-stun-server', 'string', 'realtime WebRTC', 'STUN server'),
];
