// Initial values for the fields and arrays of hot objects that will hold doubles (seconds,
// timestamps in ticks, numbers read from a Float64Array) or objects.
//
// V8 gives each field of a class the representation of the first value stored in it: a small
// integer, a double or any value. A field begun as a small integer (0, -1) that later receives a
// double is widened for every object of the class, which deprecates the class's hidden map: every
// optimized function that reads such an object falls back to the interpreter, is compiled again,
// and the objects are migrated one by one. On a 10⁶-event prediction that happened to 50 fields
// of the reader's, the conversion's and the engine's classes, and caused 17 of its 42
// deoptimizations (docs/pem.md, Performance, 2026-11-28). Number literals cannot begin a field as
// a double: V8 keeps 0 and -1 as small integers. A Float64Array's element is read as a heap number.

const box = new Float64Array(1);

function heapNumber(value: number): number {
  box[0] = value;
  return box[0];
}

/** 0, begun as a double. */
export const DOUBLE_ZERO = heapNumber(0);
/** -1, begun as a double. */
export const DOUBLE_MINUS_ONE = heapNumber(-1);

/**
 * An empty array whose elements are already doubles. A literal [] begins with small integers and
 * changes kind at its first double, and with it its hidden map: code optimized after one array
 * had changed deoptimized at the next, still unchanged (an IdTable's ids, the first pass's lists
 * of CPU seconds; docs/pem.md, Performance, 2026-11-28 09:30).
 */
export function doubleArray(): number[] {
  const array = [DOUBLE_ZERO];
  array.pop();
  return array;
}

/** An empty array whose elements are already objects (not small integers): the same, for arrays of objects. */
export function objectArray<T>(): T[] {
  const array: (T | undefined)[] = [undefined];
  array.pop();
  return array as T[];
}

/**
 * Sets each field of `object` that holds a number, a boolean or undefined to another value of
 * its kind (undefined: a number, a boolean and an object), then back to its own. V8 tracks each
 * field of a class as constant until an object's field is set again, and as of one type until it
 * takes another: either change, met in the middle of a prediction, threw away the optimized code
 * that relied on it. Done once per class, on an object made for it as its module loads (ops.ts,
 * engine.ts, nodeCores.ts), before that code exists, it costs none. Fields holding objects keep
 * their type; the object keeps its values.
 */
export function widenFields(object: object): void {
  const fields = object as Record<string, unknown>;
  for (const [field, value] of Object.entries(fields)) {
    if (typeof value === 'number') fields[field] = value + 1;
    else if (typeof value === 'boolean') fields[field] = !value;
    else if (value === undefined) {
      fields[field] = 0.5;
      fields[field] = true;
      fields[field] = {};
    } else continue;
    fields[field] = value;
  }
}
