/**
 * The `switchyard` command: a table of subcommands. Usage errors print one line naming the
 * flag and exit 2, as a user scripting the CLI expects.
 */
import { createRequire } from 'node:module';
import { UsageError } from '@switchyard/kit';
type Command = (argv: readonly string[]) => Promise<number>;

// Each command's modules load only when it runs: a gateway never loads the simulator, which
// would add a fifth of a second to the start of every process.
const launch: Command = async (argv) => (await import('./launch.js')).runLaunch(argv);
const COMMANDS: Record<string, Command> = {
  launch,
  start: launch,
  demo: async (argv) => (await import('./demo.js')).runDemo(argv),
  sim: async (argv) => (await import('@switchyard/sim')).runSimCommand([...argv]),
};

const USAGE = `switchyard: LLM inference gateway (SMG-compatible)

Usage: switchyard <command> [options]
       switchyard [launch options]      (no command: launch, as SMG's 'smg [options]')

Commands:
  launch (alias start)  run the gateway in front of SGLang / vLLM / TokenSpeed workers
  demo                  run the gateway with a simulated fleet, ready to curl
  sim                   run simulated inference workers
  version               print the version

Run 'switchyard <command> --help' for a command's options.
`;

function version(): string {
  const require = createRequire(import.meta.url);
  return (require('../../package.json') as { version: string }).version;
}

/** SMG prints its version when any argument is one of these, before parsing the rest (main.rs:1996-2007). */
const VERSION_FLAGS = new Set(['--version', '-V', '--version-verbose']);

export async function main(argv: readonly string[]): Promise<number> {
  if (argv.some((arg) => VERSION_FLAGS.has(arg))) {
    process.stdout.write(`switchyard ${version()}\n`);
    return 0;
  }
  // SMG flattens its launch flags into the top-level command: `smg --worker-urls …` launches.
  const [name, ...rest] =
    argv[0]?.startsWith('--') && argv[0] !== '--help' ? ['launch', ...argv] : argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(USAGE);
    return name === undefined ? 2 : 0;
  }
  if (name === 'version') {
    process.stdout.write(`switchyard ${version()}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`switchyard: unknown command '${name}' (try 'switchyard --help')\n`);
    return 2;
  }
  try {
    return await command(rest);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(`switchyard ${name}: ${err.message}\n`);
      return 2;
    }
    process.stderr.write(`switchyard ${name}: ${(err as Error).message}\n`);
    return 1;
  }
}
