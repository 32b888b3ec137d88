/**
 * pino logger. JSON lines with `--log-json`; otherwise a compact human line per record, written
 * synchronously because logs here are rare (no per-request info logs by default).
 */
import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';

export type { Logger };

const LEVEL_NAMES: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
const OMIT = new Set(['level', 'time', 'msg', 'hostname']);

function humanLine(record: Record<string, unknown>): string {
  const time = new Date(Number(record.time)).toISOString();
  const level = LEVEL_NAMES[Number(record.level)] ?? 'INFO';
  const extras = Object.entries(record)
    .filter(([k]) => !OMIT.has(k))
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${time} ${level.padEnd(5)} ${typeof record.msg === 'string' ? record.msg : ''}${extras ? ' ' + extras : ''}\n`;
}

class HumanStream extends Writable {
  constructor(private readonly out: NodeJS.WritableStream) {
    super();
  }
  override _write(chunk: Buffer, _enc: BufferEncoding, done: (err?: Error | null) => void): void {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line) this.out.write(humanLine(JSON.parse(line) as Record<string, unknown>));
    }
    done();
  }
}

export interface LoggerOptions {
  level: string;
  json: boolean;
  /** Destination; defaults to stderr so stdout stays free for command output. */
  destination?: NodeJS.WritableStream;
}

export function createLogger(opts: LoggerOptions): Logger {
  const dest = opts.destination ?? process.stderr;
  // `base: null`: no pid or hostname on every line.
  const base = { base: null, level: opts.level };
  return opts.json ? pino(base, dest) : pino(base, new HumanStream(dest));
}

/** A logger that drops everything, for tests and library use. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
