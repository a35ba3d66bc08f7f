// Importer for run tables of the Scaling panel and `causal-lens fit`: one measured metric per
// run and component, against a parameter (input size N or processor count P).
//
// The format is defined here (Causal Lens's own; samples/scaling/measure.sh writes it):
//  - UTF-8 text (a leading BOM is ignored), lines end in LF or CRLF;
//  - blank lines and lines starting with `#` are ignored;
//  - fields are separated by commas; a field may be quoted RFC 4180 style ("a,b", "" for ");
//  - an optional header as the first row: the names of x, y and (optionally) the component
//    column, e.g. `N,d1_misses,component`; x's name names the parameter in formulas. A first
//    row whose first field is not a number is the header;
//  - every other row: x, y[, component]. x is a positive decimal number, y a finite decimal
//    number (`1e6` and `-2.5` are fine; hex, `Infinity`, `NaN`, thousands separators are not);
//    an empty or missing component means the row has none. Repeated x are repetitions.
// A bad row is reported with the file and line and skipped (and counted); the rest is read.

import * as fs from 'node:fs/promises';
import { ProfileProblem } from '../model/profile';
import { readErrorReason } from '../readError';

export interface ScalingRun {
  x: number;
  y: number;
  component?: string;
  /** 1-based line in the file */
  line: number;
}

export interface ScalingTable {
  source: string;
  /** x's column name, "x" without a header */
  parameter: string;
  /** y's column name, "y" without a header */
  metric: string;
  runs: ScalingRun[];
  problems: ProfileProblem[];
  /** Rows that could not be read (each has a problem, up to MAX_LISTED_PROBLEMS listed). */
  skipped: number;
}

const MAX_LISTED_PROBLEMS = 100;
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Splits one CSV line; undefined when a quote is not closed. */
function splitFields(line: string): string[] | undefined {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    while (line[i] === ' ' || line[i] === '\t') i++;
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) return undefined;
        if (line[i] === '"') {
          if (line[i + 1] !== '"') break;
          i++;
        }
        field += line[i++];
      }
      i++;
      while (i < line.length && line[i] !== ',') {
        if (line[i] !== ' ' && line[i] !== '\t') return undefined;
        i++;
      }
    } else {
      const comma = line.indexOf(',', i);
      const end = comma < 0 ? line.length : comma;
      field = line.slice(i, end).trim();
      i = end;
    }
    fields.push(field);
    if (i >= line.length) return fields;
    i++;
  }
}

function decimal(text: string): number | undefined {
  if (!DECIMAL.test(text)) return undefined;
  const value = Number(text);
  return Number.isFinite(value) ? value : undefined;
}

/** Quotes a field from the file for a message, shortened. */
function shown(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);
}

export function parseScalingCsv(text: string, source: string): ScalingTable {
  const table: ScalingTable = { source, parameter: 'x', metric: 'y', runs: [], problems: [], skipped: 0 };
  const problem = (line: number, message: string) => {
    table.skipped++;
    if (table.problems.length < MAX_LISTED_PROBLEMS) table.problems.push({ file: source, line, severity: 'error', message });
  };
  const lines = text.replace(/^\ufeff/, '').split('\n');
  let first = true;
  lines.forEach((raw, index) => {
    const line = index + 1;
    const content = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (content.trim() === '' || content.trimStart().startsWith('#')) return;
    const fields = splitFields(content);
    if (!fields) return problem(line, 'a quoted field is not closed');
    // A number too large for a double (1e400) is a bad row, not a column name.
    const isHeader = first && !DECIMAL.test(fields[0]);
    first = false;
    if (isHeader) {
      if (fields.length < 2 || fields.length > 3) return problem(line, `the header needs 2 or 3 column names (x, y[, component]), found ${fields.length}`);
      table.parameter = fields[0] || 'x';
      table.metric = fields[1] || 'y';
      return;
    }
    if (fields.length < 2 || fields.length > 3) return problem(line, `expected x, y[, component], found ${fields.length} fields`);
    const x = decimal(fields[0]);
    if (x === undefined || x <= 0) return problem(line, `x must be a positive finite number, found ${shown(fields[0])}`);
    const y = decimal(fields[1]);
    if (y === undefined) return problem(line, `y must be a finite number, found ${shown(fields[1])}`);
    const component = fields[2] ? fields[2] : undefined;
    table.runs.push(component === undefined ? { x, y, line } : { x, y, component, line });
  });
  if (table.skipped > table.problems.length) {
    table.problems.push({ file: source, line: 1, severity: 'error', message: `${table.skipped - table.problems.length} more bad rows not listed (${table.skipped} skipped in all)` });
  }
  if (table.runs.length === 0 && table.skipped === 0) {
    table.problems.push({ file: source, line: 1, severity: 'error', message: 'no runs: expected rows of x, y[, component]' });
  }
  return table;
}

export async function readScalingCsv(file: string): Promise<ScalingTable> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`cannot read run table ${file}: ${readErrorReason(error)}`, { cause: error });
  }
  return parseScalingCsv(text, file);
}
