// A small flag parser: subcommands declare their flags, anything unknown is a usage error.

export class UsageError extends Error {}

/** `strings`: a flag that may repeat (`--placement 4/1 --placement 4/2`), collected in order. */
export type FlagKinds = Record<string, 'boolean' | 'integer' | 'string' | 'strings'>;

export interface ParsedFlags {
  flags: Record<string, boolean | number | string | string[] | undefined>;
  positional: string[];
}

/** The values of a repeatable flag, [] when absent. */
export function repeated(parsed: ParsedFlags, name: string): string[] {
  const value = parsed.flags[name];
  return Array.isArray(value) ? value : [];
}

export function parseFlags(args: readonly string[], kinds: FlagKinds): ParsedFlags {
  const flags: ParsedFlags['flags'] = {};
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    const kind = kinds[name];
    if (!kind) throw new UsageError(`unknown option --${name}`);
    // A second value of a single-valued flag would silently replace the first.
    if (kind !== 'strings' && flags[name] !== undefined) throw new UsageError(`--${name} is given twice`);
    if (kind === 'boolean') {
      if (eq >= 0) throw new UsageError(`--${name} takes no value, got "${arg.slice(eq + 1)}"`);
      flags[name] = true;
      continue;
    }
    const value = eq >= 0 ? arg.slice(eq + 1) : args[++i];
    if (value === undefined || value === '') throw new UsageError(`--${name} needs a value`);
    if (kind === 'integer') {
      // Decimal digits only: Number() would also take "0x10", "1e3" and " 7 ".
      const n = /^\d+$/.test(value) ? Number(value) : NaN;
      if (!Number.isSafeInteger(n)) throw new UsageError(`--${name} needs a whole number, got "${value}"`);
      flags[name] = n;
    } else if (kind === 'strings') {
      flags[name] = [...repeatedValues(flags[name]), value];
    } else {
      flags[name] = value;
    }
  }
  return { flags, positional };
}

function repeatedValues(value: ParsedFlags['flags'][string]): string[] {
  return Array.isArray(value) ? value : [];
}
