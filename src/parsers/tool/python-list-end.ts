/**
 * Tells when a streamed Python list may have closed, reading each piece once: the bracket depth
 * outside string literals. Re-reading the whole list at every `]` instead would be quadratic
 * when its strings hold many (and so would reading the growing text: a string grown by `+=` is
 * copied flat to be read). This only says when reading the list is worth it; the list reader
 * (python-literal.ts) stays the judge of what the list is.
 */
export class PythonListEnd {
  /** The last characters fed, when what they are shows only with the next ones. */
  private pending = '';
  /** The position in the text being scanned. */
  private at = 0;
  private depth = 0;
  /** The quote that closes the open string literal (`"`, `'`, `"""`, `'''`), or '' outside one. */
  private closing = '';

  /** Feeds the list's next piece (the first one from its `[`); true when its brackets balance. */
  closed(piece: string): boolean {
    const text = this.pending + piece;
    this.at = 0;
    this.pending = '';
    while (this.at < text.length) {
      const c = text.charAt(this.at);
      if (this.closing !== '') {
        if (!this.stepInString(text, c)) return this.wait(text);
        continue;
      }
      if (c === '"' || c === "'") {
        // Whether it opens a triple-quoted string shows only with the next two characters.
        if (this.at + 3 > text.length) return this.wait(text);
        this.closing = text.startsWith(c + c + c, this.at) ? c + c + c : c;
        this.at += this.closing.length;
        continue;
      }
      this.at++;
      if (c === '[' || c === '(' || c === '{') this.depth++;
      else if ((c === ']' || c === ')' || c === '}') && --this.depth === 0) return true;
    }
    return false;
  }

  private wait(text: string): false {
    this.pending = text.slice(this.at);
    return false;
  }

  /** One step inside a string literal; false when it needs characters not yet in. */
  private stepInString(text: string, c: string): boolean {
    if (c === '\\') {
      // An escaped character (in a raw string too) never closes the string.
      if (this.at + 2 > text.length) return false;
      this.at += 2;
    } else if (c === this.closing.charAt(0)) {
      if (this.at + this.closing.length > text.length) return false;
      if (text.startsWith(this.closing, this.at)) {
        this.at += this.closing.length;
        this.closing = '';
      } else {
        this.at++;
      }
    } else {
      this.at++;
    }
    return true;
  }
}
