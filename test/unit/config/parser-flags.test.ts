// --tool-call-parser and --reasoning-parser take SMG's parser names: an implemented one is kept,
// a name SMG has but Switchyard does not implement is refused naming it, and an unknown name is
// refused listing the names (the CLI exits 2 on either).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFlags, UsageError } from '@switchyard/kit';
import { GATEWAY_FLAGS } from '../../../src/config/gateway-flags.js';
import { resolveLaunchFlags } from '../../../src/config/launch-flags.js';
import { buildConfig } from '../../../src/config/validate.js';

const build = (args: string[]) => buildConfig(parseFlags(args, GATEWAY_FLAGS));

void describe('parser flags', () => {
  void it('default to none (by model name), and keep an implemented name', () => {
    const none = build([]);
    assert.equal(none.toolCallParser, undefined);
    assert.equal(none.reasoningParser, undefined);
    const c = build(['--tool-call-parser', 'qwen_xml', '--reasoning-parser', 'deepseek_r1']);
    assert.equal(c.toolCallParser, 'qwen_xml');
    assert.equal(c.reasoningParser, 'deepseek_r1');
  });

  void it('refuse an unknown name, listing the names', () => {
    assert.throws(
      () => build(['--tool-call-parser', 'hermes2']),
      (e: unknown) =>
        e instanceof UsageError && /qwen/.test(e.message) && /mistral/.test(e.message),
    );
    assert.throws(
      () => build(['--reasoning-parser', 'nope']),
      (e: unknown) => e instanceof UsageError && /deepseek_r1/.test(e.message),
    );
  });

  void it("refuse SMG's names whose formats are not built, saying so", () => {
    assert.throws(
      () => resolveLaunchFlags(['--tool-call-parser', 'minimax_m2']),
      (e: unknown) => e instanceof UsageError && /minimax_m2.*not supported/.test(e.message),
    );
    assert.throws(
      () => resolveLaunchFlags(['--reasoning-parser', 'kimi_k3']),
      (e: unknown) => e instanceof UsageError && /kimi_k3.*not supported/.test(e.message),
    );
  });
});
