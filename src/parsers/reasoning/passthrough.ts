import type { ReasoningParser, ReasoningResult, ReasoningStream } from '../types.js';

const asContent = (text: string): ReasoningResult => ({ reasoning: '', content: text });

/**
 * Everything is content, markers included, even when told the answer begins reasoning (SMG's
 * passthrough ignores that too). It has no markers: both tags are empty, which a caller
 * checking a prompt for an open block must treat as "none".
 */
export const passthrough: ReasoningParser = {
  name: 'passthrough',
  startTag: '',
  endTag: '',
  alwaysStartsInReasoning: false,
  parse: (text) => asContent(text),
  stream: (): ReasoningStream => ({ push: asContent, finish: () => asContent('') }),
};
