// `causal-lens calibrate [--np 2] [--out FILE] [--seconds-per-size S] [--repeat N] [--shared-core
// K,K...|none] [--preset NAME]`: writes the communication-time table for this machine (intra-node
// ping-pong, the 0-byte one-way time with K ranks sharing one core and, for even K, their
// relaying turn, and the recorder's cost per call; each point the median of N measurements,
// their spread reported), or with --preset one of the model tables for a network one does not have.

import * as fs from 'node:fs';
import * as path from 'node:path';
import { COMM_TABLE_PRESETS, CommTable, isCommTablePreset, presetCommTable } from '../network/commTable';
import { measureIntraNode, measureRecorderCosts, measureRelayTurns, measureSchedulerTick, measureSchedulerSlice, measureSharedCore, medianPoints, medianSeconds } from '../mpi/calibration';
import { busyShare } from '../mpi/machineLoad';
import { MAX_LOCAL_RANKS } from '../mpi/launch';
import { UsageError, parseFlags } from './flags';

const DEFAULT_SECONDS_PER_SIZE = 0.05;
const DEFAULT_SHARED_CORE = '2,4,8';
const DEFAULT_REPEAT = 3;
/** About 15 s each here (3 took 43–51 s): 100 is 25 minutes. */
const MAX_REPEAT = 100;
/** Ranks on one core in the shared-core ping-pong; beyond it a mistyped count would start that many processes on core 0. */
const MAX_SHARED_CORE = 64;
/** Other processes busier than this, over half a second between measurements, are reported. */
const BUSY_WARNING_SHARE = 0.2;

/**
 * Beyond this the repeated measurements' 8-byte one-way times disagree enough to say so. Within
 * one phase of a VM's speed they spread about 3%; between phases 20–60% (a message between two
 * ranks on one core 1.67–1.73 µs against 2.0–2.7 µs: docs/pem.md, Accuracy, 2026-11-27 01:15–02:11).
 */
const REPEAT_SPREAD_WARNING = 0.15;

/** Says when the repeated measurements' 8-byte one-way times disagree: the machine's speed changed while they ran. */
export function repeatSpreadWarning(oneWaySeconds: readonly number[]): string | undefined {
  const spread = Math.max(...oneWaySeconds) / Math.min(...oneWaySeconds) - 1;
  if (!(spread > REPEAT_SPREAD_WARNING)) return undefined;
  return (
    `causal-lens calibrate: warning: the ${oneWaySeconds.length} measurements' 8-byte one-way times differ by ${(spread * 100).toFixed(0)}%: ` +
    "this machine's speed changed while they ran (a VM's does, in phases of seconds); the table takes each point's median, and predictions of " +
    'programs made of small messages may be off by as much (whatif --spread shows how much, from the fastest and slowest kept beside each median); calibrate again, or with a larger --repeat\n'
  );
}

/** Warns when other processes keep this machine's CPUs busy while the calibration is between runs. */
async function warnIfBusy(err: (t: string) => void, when: string): Promise<void> {
  const share = await busyShare(0.5);
  if (share > BUSY_WARNING_SHARE) {
    err(
      `causal-lens calibrate: warning: ${when}, other processes kept ${(share * 100).toFixed(0)}% of this machine's CPU time busy; ` +
        'ranks waiting for a core behind them make every time longer, so calibrate on a quiet machine\n',
    );
  }
}

function sharedCoreRanks(text: string): number[] {
  if (text === 'none') return [];
  const ranks = text.split(',').map(Number);
  if (!ranks.every((k) => Number.isInteger(k) && k >= 2 && k <= MAX_SHARED_CORE) || ranks.some((k, i) => i > 0 && k <= ranks[i - 1])) {
    throw new UsageError(`--shared-core needs increasing whole numbers from 2 to ${MAX_SHARED_CORE} (ranks per core), or none; got "${text}"`);
  }
  return ranks;
}

export async function runCalibrate(args: string[], out: (t: string) => void, err: (t: string) => void): Promise<number> {
  const { flags, positional } = parseFlags(args, { np: 'integer', out: 'string', 'seconds-per-size': 'string', repeat: 'integer', preset: 'string', 'shared-core': 'string' });
  if (positional.length) throw new UsageError(`calibrate takes no arguments, got "${positional[0]}"`);
  const np = (flags.np as number | undefined) ?? 2;
  if (np < 2 || np > MAX_LOCAL_RANKS) throw new UsageError(`--np needs 2 to ${MAX_LOCAL_RANKS} ranks (the ping-pong runs between ranks 0 and 1), got ${np}`);
  const seconds = Number(flags['seconds-per-size'] ?? DEFAULT_SECONDS_PER_SIZE);
  if (!(seconds > 0)) throw new UsageError(`--seconds-per-size needs a positive number, got "${flags['seconds-per-size']}"`);
  const shared = sharedCoreRanks((flags['shared-core'] as string | undefined) ?? DEFAULT_SHARED_CORE);
  const repeat = (flags.repeat as number | undefined) ?? DEFAULT_REPEAT;
  if (repeat < 1 || repeat > MAX_REPEAT) throw new UsageError(`--repeat needs 1 to ${MAX_REPEAT} measurements, got ${repeat}`);
  let table: CommTable;
  const preset = flags.preset as string | undefined;
  if (preset !== undefined) {
    // A preset measures nothing: flags about the measurement would be silently ignored.
    const measuring = ['np', 'repeat', 'shared-core', 'seconds-per-size'].filter((name) => flags[name] !== undefined);
    if (measuring.length) throw new UsageError(`--preset writes a model, measuring nothing: ${measuring.map((name) => `--${name}`).join(', ')} would be ignored`);
    if (!isCommTablePreset(preset)) {
      throw new UsageError(`unknown --preset "${preset}"; known: ${COMM_TABLE_PRESETS.map((p) => `${p.name} (${p.description})`).join(', ')}`);
    }
    table = presetCommTable(preset);
  } else {
    const tables: CommTable[] = [];
    // Relaying turns pair the ranks up, so only even counts; the recorder's cost needs the 2-rank one.
    const relayed = shared.filter((k) => k % 2 === 0);
    if (shared.length && relayed.length < 2) err(`causal-lens calibrate: relaying turns need two or more even --shared-core counts (got ${shared.join(', ')}); not measured, nor the recorder's cost\n`);
    else if (relayed.length && !relayed.includes(2)) err('causal-lens calibrate: the recorder\'s cost per call needs 2 in --shared-core; not measured\n');
    for (let i = 1; i <= repeat; i++) {
      await warnIfBusy(err, `before measurement ${i}`);
      err(`causal-lens calibrate: measurement ${i} of ${repeat}: ping-pong between 2 of ${np} ranks on this node, 0 B to 16 MiB${shared.length ? `; 0-byte ping-pong with ${shared.join(', ')} ranks sharing core 0` : ''}${relayed.length >= 2 ? `; relaying with ${relayed.join(', ')}${relayed.includes(2) ? "; three times each, untraced then traced, for the recorder's cost per call and per turn" : ''}` : ''}; the scheduler's tick and slice\n`);
      const measured = await measureIntraNode({ np, targetSeconds: seconds, onOutput: err });
      if (shared.length) measured.sharedCore = await measureSharedCore(shared, seconds, 0, err);
      if (relayed.length >= 2) {
        // With 2 among them, the relaying turns come from the recorder's pairs (untraced, then traced).
        if (relayed.includes(2)) {
          const { relayTurn, recorderCallSeconds, recorderTurn, clockReadSeconds } = await measureRecorderCosts(relayed, 0, err);
          Object.assign(measured, { relayTurn, recorderCallSeconds, recorderTurn, clockReadSeconds });
        } else measured.relayTurn = await measureRelayTurns(relayed, 0, err);
      }
      measured.schedulerTickSeconds = await measureSchedulerTick(err);
      measured.schedulerSliceSeconds = await measureSchedulerSlice(measured.schedulerTickSeconds, err);
      tables.push(measured);
    }
    await warnIfBusy(err, 'after the last measurement');
    table = { ...tables[0], intraNode: medianPoints(tables.map((t) => t.intraNode!)) };
    if (shared.length) table.sharedCore = medianPoints(tables.map((t) => t.sharedCore!));
    if (relayed.length >= 2) {
      table.relayTurn = medianPoints(tables.map((t) => t.relayTurn!));
      const costs = tables.flatMap((t) => (t.recorderCallSeconds === undefined ? [] : [t.recorderCallSeconds]));
      if (costs.length) table.recorderCallSeconds = medianSeconds(costs);
      const turns = tables.flatMap((t) => (t.recorderTurn ? [t.recorderTurn] : []));
      if (turns.length) table.recorderTurn = medianPoints(turns);
      const reads = tables.flatMap((t) => (t.clockReadSeconds === undefined ? [] : [t.clockReadSeconds]));
      if (reads.length) table.clockReadSeconds = medianSeconds(reads);
    }
    table.schedulerTickSeconds = medianSeconds(tables.map((t) => t.schedulerTickSeconds!));
    table.schedulerSliceSeconds = medianSeconds(tables.map((t) => t.schedulerSliceSeconds!));
    if (repeat > 1) {
      const small = tables.map((t) => t.intraNode!.find((p) => p.bytes === 8)!.seconds);
      const us = (seconds: number) => (seconds * 1e6).toFixed(2);
      err(`causal-lens calibrate: 8-byte one-way over ${repeat} measurements ${us(Math.min(...small))}–${us(Math.max(...small))} µs; the table takes each point's median and keeps the fastest and slowest (low, high) for whatif --spread\n`);
      const disagree = repeatSpreadWarning(small);
      if (disagree) err(disagree);
    }
  }
  const text = `${JSON.stringify(table, null, 2)}\n`;
  const file = flags.out as string | undefined;
  if (file) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    out(`${file}\n`);
  } else {
    out(text);
  }
  return 0;
}
