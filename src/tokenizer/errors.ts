/**
 * Why a tokenizer could not be loaded. The message names the file or check that failed and is
 * meant for the registry's failure record and the logs; the caller adds the worker or flag.
 */
export class TokenizerLoadError extends Error {
  override name = 'TokenizerLoadError';
}

/**
 * A GetTokenizer bundle refused before or while it was unpacked (size, digest, ZIP entries). A
 * subclass of TokenizerLoadError so a caller that treats every load failure alike can.
 */
export class TokenizerBundleError extends TokenizerLoadError {
  override name = 'TokenizerBundleError';
}
