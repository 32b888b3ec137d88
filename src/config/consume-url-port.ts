import { UsageError } from '@switchyard/kit';

/**
 * SMG's hand-parsed `--prefill URL [BOOTSTRAP_PORT|none]`, and `--encode` alike (main.rs:38-75): the token after the
 * URL is the port when it parses as a u16, no port when it is `none` (any case), and not
 * consumed otherwise. A consumed `0` is then refused, as SMG's validator does.
 */
export function consumeUrlPort(
  flag: string,
): (rest: readonly string[]) => { value: unknown; used: number } {
  return (rest) => {
    const url = rest[0];
    if (url === undefined || url.startsWith('--')) return { value: undefined, used: 0 };
    const next = rest[1];
    if (next !== undefined && /^\+?\d+$/.test(next) && Number(next) <= 65535) {
      const port = Number(next);
      if (port === 0)
        throw new UsageError(
          `--${flag} ${url} ${next}: bootstrap port must be between 1 and 65535`,
        );
      return { value: { url, bootstrapPort: port }, used: 2 };
    }
    if (next !== undefined && next.toLowerCase() === 'none')
      return { value: { url, bootstrapPort: null }, used: 2 };
    return { value: { url, bootstrapPort: null }, used: 1 };
  };
}
