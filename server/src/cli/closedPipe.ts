// Ending a command quietly when its reader stops early, for the CLI and the validation scripts.

/**
 * A reader that stops early (`| head`) ends the command quietly, as SIGPIPE ends C tools: its
 * write fails with EPIPE, which Node raises as an error event on stdout, a stack trace without
 * this. Any other failure to write is said in one line, naming `program`.
 */
export function endQuietlyOnClosedPipe(program: string): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(0);
    process.stderr.write(`${program}: cannot write the output: ${error.message}\n`);
    process.exit(1);
  });
}
