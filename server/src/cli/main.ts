// The causal-lens command line: the same analysis as the language server, for terminals.

import { UsageError } from './flags';
import { runReport } from './report';

const USAGE = `usage: causal-lens <command> [options]

commands:
  report [--json] [--min-points N] FILE...   rank lines of COZ/BCOZ causal profiles
`;

type Command = (args: string[], out: (t: string) => void, err: (t: string) => void) => Promise<number>;

const COMMANDS: Record<string, Command> = { report: runReport };

export async function main(argv: string[]): Promise<number> {
  const out = (text: string) => process.stdout.write(text);
  const err = (text: string) => process.stderr.write(text);
  const [name, ...args] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    out(USAGE);
    return name ? 0 : 2;
  }
  const command = COMMANDS[name];
  if (!command) {
    err(`causal-lens: unknown command "${name}"\n${USAGE}`);
    return 2;
  }
  try {
    return await command(args, out, err);
  } catch (error) {
    if (error instanceof UsageError) {
      err(`causal-lens ${name}: ${error.message}\n${USAGE}`);
      return 2;
    }
    // Never a stack trace to a user: one line naming what failed.
    err(`causal-lens ${name}: ${(error as Error).message ?? String(error)}\n`);
    return 1;
  }
}

if (require.main === module) {
  main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
