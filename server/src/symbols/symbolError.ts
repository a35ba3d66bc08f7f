// The one error the symbolizer lets out: its message names the file and the section/offset,
// so callers can show it to a user as is.

export class SymbolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SymbolError';
  }
}
