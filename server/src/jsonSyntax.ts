// Why JSON.parse refused a file, fit for a one-line message: V8's text quotes the start of the
// input, which for a file that is not JSON at all (a binary, a note) brings its newlines and
// control bytes to the user's terminal.

const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const MAX_LENGTH = 120;

export function jsonSyntaxProblem(error: unknown): string {
  const text = (error as Error).message.replace(UNPRINTABLE, '�');
  return text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH)}…` : text;
}
