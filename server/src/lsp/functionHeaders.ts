// Function definitions of a C or C++ file, found without a compiler: a "Run virtual speedup"
// lens on a function's header runs on that function's hottest line. A heuristic on purpose
// (the server has no C parser): a top-level `{` whose preceding text ends in `name(...)`.

export interface FunctionSpan {
  /** 1-based line of the function's name. */
  headerLine: number;
  name: string;
  /** 1-based lines of the opening and closing braces. */
  bodyStart: number;
  bodyEnd: number;
}

/** The text with comments, strings and character literals blanked out, newlines kept. */
function codeOnly(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'/g, (m) => m.replace(/[^\n]/g, ' '));
}

const NOT_FUNCTIONS = new Set(['if', 'for', 'while', 'switch', 'return', 'sizeof', 'catch']);

export function findFunctions(text: string): FunctionSpan[] {
  const code = codeOnly(text);
  const functions: FunctionSpan[] = [];
  let depth = 0;
  let line = 1;
  let statementStart = 0; // where the text leading to the next top-level brace begins
  let open: { name: string; headerLine: number; bodyStart: number } | undefined;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '\n') line++;
    else if (c === '{') {
      if (depth === 0) {
        const head = code.slice(statementStart, i);
        const match = /([A-Za-z_][\w:~]*)\s*\([^;{}]*\)[^;{}()]*$/.exec(head);
        if (match && !NOT_FUNCTIONS.has(match[1]) && !head.trimStart().startsWith('#')) {
          const before = code.slice(0, statementStart + match.index);
          open = { name: match[1], headerLine: before.split('\n').length, bodyStart: line };
        } else open = undefined;
      }
      depth++;
    } else if (c === '}') {
      depth = Math.max(0, depth - 1);
      if (depth === 0) {
        if (open) functions.push({ ...open, bodyEnd: line });
        open = undefined;
        statementStart = i + 1;
      }
    } else if (depth === 0 && (c === ';' || (c === '#' && (i === 0 || code[i - 1] === '\n')))) {
      statementStart = i + 1;
      if (c === '#') while (i + 1 < code.length && code[i + 1] !== '\n') i++; // skip the directive
    }
  }
  return functions;
}
