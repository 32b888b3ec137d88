/**
 * Which chat template a model uses, in SMG's order (grpc-mode.md §3.1, "Chat template
 * resolution"): an explicit file, then chat_template.json, chat_template.jinja and any other
 * *.jinja in the tokenizer directory, then tokenizer_config.json's `chat_template`.
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { TokenizerLoadError } from './errors.js';

export interface TemplateSource {
  source: string;
  /** Where it came from, for error messages. */
  origin: string;
}

/**
 * Resolves the template text, or undefined when the model has none. `explicitPath` (the
 * `--chat-template` flag or a model card's) must exist; the directory's files are optional.
 */
export async function resolveChatTemplate(
  dir: string,
  tokenizerConfig: Readonly<Record<string, unknown>>,
  explicitPath: string | undefined,
): Promise<TemplateSource | undefined> {
  if (explicitPath !== undefined) {
    const text = await readText(explicitPath);
    if (text === undefined) {
      throw new TokenizerLoadError(`chat template ${explicitPath} does not exist`);
    }
    return { source: fromFile(explicitPath, text), origin: explicitPath };
  }
  const names = await readdir(dir);
  const jinja = names.filter((n) => n.endsWith('.jinja') && n !== 'chat_template.jinja').sort();
  for (const name of ['chat_template.json', 'chat_template.jinja', ...jinja]) {
    if (!names.includes(name)) continue;
    const path = join(dir, name);
    const text = await readText(path);
    if (text !== undefined) return { source: fromFile(path, text), origin: path };
  }
  const inConfig = fromConfigValue(tokenizerConfig.chat_template);
  if (inConfig === undefined) return undefined;
  return { source: inConfig, origin: `${join(dir, 'tokenizer_config.json')} chat_template` };
}

/** A .json file holds the template as a JSON string or under `chat_template`; others are text. */
function fromFile(path: string, text: string): string {
  if (!path.endsWith('.json')) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new TokenizerLoadError(`${path} is not valid JSON: ${(err as Error).message}`);
  }
  const template =
    typeof parsed === 'string' ? parsed : fromConfigValue(recordOf(parsed)?.chat_template);
  if (template === undefined) {
    throw new TokenizerLoadError(`${path} holds neither a template string nor chat_template`);
  }
  return template;
}

/**
 * tokenizer_config's `chat_template` is a string, or a list of `{name, template}` where
 * transformers uses the one named "default" unless asked for another; so do we.
 */
function fromConfigValue(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return undefined;
  for (const item of value) {
    const named = recordOf(item);
    if (named?.name === 'default' && typeof named.template === 'string') return named.template;
  }
  return undefined;
}

function recordOf(v: unknown): Record<string, unknown> | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new TokenizerLoadError(`cannot read ${path}: ${(err as Error).message}`);
  }
}
