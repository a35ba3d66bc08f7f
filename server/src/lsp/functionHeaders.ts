// Function definitions of C, C++, Rust and Fortran files, found without a compiler: a "Run
// virtual speedup" lens on a function's header runs on that function's hottest line.
// Heuristics on purpose (the server parses no language): in C and C++ a top-level `{` whose
// preceding text ends in `name(...)`; in Rust `fn name` and its braced body; in Fortran a
// `subroutine`/`function`/`program` statement and its `end`.

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

/** The language family of a source path, by extension; undefined when not supported. */
export function sourceFamily(file: string): 'c' | 'rust' | 'fortran' | undefined {
  if (/\.(c|cc|cpp|cxx|c\+\+|h|hh|hpp|hxx|cu)$/i.test(file)) return 'c';
  if (/\.rs$/i.test(file)) return 'rust';
  if (/\.(f|for|f77|f90|f95|f03|f08)$/i.test(file)) return 'fortran';
  return undefined;
}

export function findFunctionsIn(file: string, text: string): FunctionSpan[] {
  switch (sourceFamily(file)) {
    case 'c':
      return findFunctions(text);
    case 'rust':
      return findRustFunctions(text);
    case 'fortran':
      return findFortranUnits(text);
    default:
      return [];
  }
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** `fn name` and the braces of its body, at any depth (methods in `impl` blocks too). */
export function findRustFunctions(text: string): FunctionSpan[] {
  // Rust lifetimes ('a) are not character literals: blank comments and strings only.
  const code = text.replace(/\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:\\.|[^"\\])*"/g, (m) => m.replace(/[^\n]/g, ' '));
  const functions: FunctionSpan[] = [];
  for (const match of code.matchAll(/\bfn\s+([A-Za-z_]\w*)/g)) {
    const open = code.indexOf('{', match.index);
    const semicolon = code.indexOf(';', match.index);
    if (open < 0 || (semicolon >= 0 && semicolon < open)) continue; // a declaration in a trait
    let depth = 0;
    let close = open;
    for (; close < code.length; close++) {
      if (code[close] === '{') depth++;
      else if (code[close] === '}' && --depth === 0) break;
    }
    functions.push({ name: match[1], headerLine: lineAt(code, match.index), bodyStart: lineAt(code, open), bodyEnd: lineAt(code, close) });
  }
  return functions;
}

const FORTRAN_START = /^\s*(?:(?:pure|elemental|impure|recursive|module|non_recursive)\s+|(?:integer|real|double\s+precision|complex|logical|character|type)\s*(?:\([^)]*\))?\s+)*(subroutine|function|program)\s+([A-Za-z_]\w*)/i;
const FORTRAN_END = /^\s*end\s*(subroutine|function|program)?\b/i;

/** Subroutines, functions and programs, each up to its `end`; `contains` nests them. */
export function findFortranUnits(text: string): FunctionSpan[] {
  const units: FunctionSpan[] = [];
  const open: { name: string; headerLine: number }[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.replace(/!.*$/, '');
    const start = FORTRAN_START.exec(line);
    if (start && !/^\s*end\b/i.test(line)) {
      open.push({ name: start[2], headerLine: index + 1 });
    } else if (FORTRAN_END.test(line) && !/^\s*end\s*(if|do|select|where|forall|associate|block|type|interface|module)\b/i.test(line)) {
      const unit = open.pop();
      if (unit) units.push({ ...unit, bodyStart: unit.headerLine, bodyEnd: index + 1 });
    }
  });
  return units.sort((a, b) => a.headerLine - b.headerLine);
}

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
