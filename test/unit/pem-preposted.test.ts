// Receives posted a round ahead (double buffering), a common MPI pattern no recorded program here
// has: a rank's conversion holds a posted Irecv until its completion names the source, so the
// rank's queue of operations never empties, and past 1,024 operations it moves what it holds to
// its front (otf2Ops.ts). The trace is written by the bench's spool generator and converted by the
// recorder's converter.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writePrepostedSpool } from '../../bench/synthSpool';
import { modelCommTable } from '../../server/src/network/commTable';
import { predictScenarios } from '../../server/src/pem';
import { OpKind, PemOp } from '../../server/src/pem/ops';
import { cpuTimeMetrics, Otf2RankStream } from '../../server/src/pem/otf2Ops';
import { communicatorRanks, openOtf2Archive } from '../../server/src/trace/otf2Archive';
import { buildMpi, MPI_BUILD } from './mpiBuild';

const WORK = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-preposted-'));
const TRACE = path.join(WORK, 'traces.otf2');
const ITERATIONS = 900;

before(() => {
  buildMpi();
  writePrepostedSpool(WORK, ITERATIONS);
  execFileSync(path.join(MPI_BUILD, 'causal-lens-otf2'), [WORK], { stdio: 'pipe' });
});

after(() => fs.rmSync(WORK, { recursive: true, force: true }));

test('receives posted a round ahead: every operation in order, each receive with the message its wait completed', () => {
  const archive = openOtf2Archive(TRACE);
  const comms = communicatorRanks(archive.defs);
  assert.equal(archive.ranks.length, 2);
  for (const rank of archive.ranks) {
    const stream = new Otf2RankStream(archive, rank, comms, cpuTimeMetrics(archive), 0);
    const ops: PemOp[] = [];
    for (let op = stream.next(); op; op = stream.next()) ops.push(op);
    const where = `rank ${rank.rank}`;
    assert.deepEqual([...stream.skipped], [], where);
    const irecvs = ops.filter((op) => op.kind === OpKind.Irecv);
    const isends = ops.filter((op) => op.kind === OpKind.Isend);
    const waits = ops.filter((op) => op.kind === OpKind.Wait);
    assert.deepEqual([irecvs.length, isends.length, waits.length], [ITERATIONS, ITERATIONS, ITERATIONS], where);
    // Irecv(0), then per iteration Irecv(i + 1) (but in the last), Isend(i), Wait(recv i, send i); End.
    const kinds = [OpKind.Irecv];
    for (let i = 0; i < ITERATIONS; i++) kinds.push(...(i + 1 < ITERATIONS ? [OpKind.Irecv] : []), OpKind.Isend, OpKind.Wait);
    kinds.push(OpKind.End);
    assert.deepEqual(
      ops.map((op) => op.kind),
      kinds,
      where,
    );
    for (let i = 0; i < ITERATIONS; i++) {
      const at = `${where}, iteration ${i}`;
      // Each posted receive carries the source and tag of the message its wait completed.
      assert.deepEqual([irecvs[i].peer, irecvs[i].tag], [1 - rank.rank, i + 1], at);
      assert.deepEqual([isends[i].peer, isends[i].tag], [1 - rank.rank, i + 1], at);
      assert.deepEqual(waits[i].requests, [irecvs[i].request, isends[i].request], at);
    }
    stream.close();
  }
});

test('receives posted a round ahead: the traced configuration replays to the end, within 2% of the traced time', async () => {
  // The spool's messages take 10 µs, whatever their size: the traced network says so.
  const prediction = await predictScenarios(TRACE, [{}], { tracedNetwork: modelCommTable('10 µs', 10e-6, 1e15) });
  const scenario = prediction.scenarios[0];
  assert.deepEqual(scenario.problems ?? [], []);
  const error = scenario.predictedSeconds / prediction.measuredSeconds - 1;
  assert.ok(Math.abs(error) < 0.02, `predicted ${scenario.predictedSeconds} s against ${prediction.measuredSeconds} s traced`);
});

test('a message naming a rank outside its communicator is counted as a problem of the rank, not dropped silently', () => {
  const archive = openOtf2Archive(TRACE);
  // Every communicator of this two-rank trace taken as holding rank 0 alone: rank 0's partner, 1, is outside.
  const alone = new Map([...communicatorRanks(archive.defs).keys()].map((comm) => [comm, [0]]));
  const stream = new Otf2RankStream(archive, archive.ranks[0], alone, cpuTimeMetrics(archive), 0);
  const peers: number[] = [];
  for (let op = stream.next(); op; op = stream.next()) if (op.kind === OpKind.Irecv || op.kind === OpKind.Isend) peers.push(op.peer);
  stream.close();
  assert.equal(peers.length, 2 * ITERATIONS);
  assert.ok(peers.every((peer) => peer === -1), 'taken as no rank');
  assert.deepEqual([...stream.skipped], [['a message or collective root naming a rank outside its communicator (taken as no rank)', 2 * ITERATIONS]]);
});
