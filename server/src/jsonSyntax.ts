// Values and JSON errors from a user's file, fit for a one-line message: V8's text for a
// refused file quotes the start of the input, which for a file that is not JSON at all (a
// binary, a note) brings its newlines and control bytes to the user's terminal.

const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
/** Characters kept of a parser's message, and of a quoted value. */
const MAX_LENGTH = 120;
const QUOTED_LENGTH = 40;

/** A value read from a file, quoted as JSON and cut to a length a one-line message can hold. */
export function quotedValue(value: unknown): string {
  const text = String(JSON.stringify(value));
  return text.length > QUOTED_LENGTH ? `${text.slice(0, QUOTED_LENGTH)}…` : text;
}

/** JSON.parse's complaint about a file, on one printable line. */
export function jsonSyntaxProblem(error: unknown): string {
  const text = (error as Error).message.replace(UNPRINTABLE, '�');
  return text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH)}…` : text;
}
