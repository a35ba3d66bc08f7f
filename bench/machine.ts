/**
 * The machine a figure was measured on, printed beside every table of measured figures (bench
 * reports, the PEM validation): this VM's speed, and even its cross-core bandwidth, changes
 * between runs of one day, so a figure without its machine cannot be compared.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';

function cpuModel(): string {
  try {
    return /^model name\s*:\s*(.*)$/m.exec(fs.readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? os.cpus()[0]?.model ?? '?';
  } catch {
    return os.cpus()[0]?.model ?? '?';
  }
}

/** One line: CPUs, model, memory, kernel and Node version. */
export function describeMachine(): string {
  return `${os.availableParallelism()} CPUs (nproc), ${cpuModel()}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, Linux ${os.release()}; Node ${process.version}`;
}
