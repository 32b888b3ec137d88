/**
 * What a streamed gRPC answer looks like on the wire, apart from how it is pumped: the frames
 * each engine output adds, the frames that end the stream, and the frames that end a stream that
 * failed after it started. One framer per response (OpenAI chat/completions and SGLang's
 * `/generate` in openai-framer.ts; Anthropic Messages in messages/messages-framer.ts); the body
 * (stream-body.ts) owns the samples' states, backpressure and the call's end.
 */
import type { EngineOutput } from '../engine/types.js';
import type { ChoiceState } from './choice.js';

export interface StreamFramer {
  /** The frames one engine output of sample `c` adds ('' when it adds none). */
  frames(out: EngineOutput, c: ChoiceState): string;
  /**
   * The frames after the engine's last output; `choices` in index order. A sample whose complete
   * never came still holds text in its decoder and parsers, which these frames must carry. A
   * promise when the last frame waits on work of its own (a Responses stream stores the response
   * before it says `response.completed`); it never rejects: a failure is framed.
   */
  closing(choices: readonly ChoiceState[]): string | Promise<string>;
  /** The frames that end a stream whose engine call failed after the head went out. */
  failure(message: string): string;
}
