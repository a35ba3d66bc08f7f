// How many turns a rank waiting in MPI_Recv on a shared core waits through before it takes its
// message, in recorder traces of pinned runs (validation/pem/validate.mjs --keep DIR):
//   npx tsc -p . && node validation/pem/turns.mjs DIR/master_worker-8-2-*/traces.otf2
// For each blocking receive posted before its message was sent, it counts the calls (MPI_Send
// entered) of the other ranks pinned to the receiver's CPU set between the send and the
// receive's return, and prints, per receiving core, sender's core (the same or another) and
// count, the receives and their median delay from the send. PEM's rule it checks (docs/pem.md, "The scheduler's tick"): a rank
// waiting on a core that several ranks compute on gets it back after each has had a turn, a turn
// ending at that rank's next call or at the tick.

import './closed-pipe.mjs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);
const { openOtf2Archive, openRankEvents, communicatorRanks } = require(path.join(root, 'out/server/src/trace/otf2Archive.js'));
const { EventRecord } = require(path.join(root, 'out/server/src/trace/otf2Events.js'));

const traces = process.argv.slice(2);
if (traces.length === 0) {
  process.stderr.write('usage: node validation/pem/turns.mjs TRACE.otf2...\n');
  process.exit(2);
}

/** Per CPU set and count of calls between: the receives' delays (seconds). */
const delays = new Map();

for (const trace of traces) {
  const archive = openOtf2Archive(trace);
  if (archive.fatal) throw new Error(archive.fatal);
  const members = communicatorRanks(archive.defs);
  const worldRank = (comm, rank) => (members.get(comm) ?? [])[rank] ?? rank;
  const perSecond = archive.defs.clock.ticksPerSecond;
  const sendRegion = [...archive.defs.regions].find(([, name]) => name === 'MPI_Send')?.[0];
  const recvRegion = [...archive.defs.regions].find(([, name]) => name === 'MPI_Recv')?.[0];
  const sends = new Map();
  const sendEnters = new Map();
  const receives = [];
  for (const location of archive.ranks) {
    const reader = openRankEvents(archive, location);
    const enters = [];
    let recvEnter = -1;
    let matched = null;
    while (reader.next()) {
      const time = reader.time / perSecond;
      if (reader.type === EventRecord.Enter) {
        if (reader.region === sendRegion) enters.push(time);
        if (reader.region === recvRegion) recvEnter = time;
      } else if (reader.type === EventRecord.MpiSend) {
        const key = `${location.rank}>${worldRank(reader.comm, reader.peer)}:${reader.comm}:${reader.tag}`;
        if (!sends.has(key)) sends.set(key, []);
        sends.get(key).push(time);
      } else if (reader.type === EventRecord.MpiRecv && recvEnter >= 0) {
        matched = `${worldRank(reader.comm, reader.peer)}>${location.rank}:${reader.comm}:${reader.tag}`;
      } else if (reader.type === EventRecord.Leave && reader.region === recvRegion && matched) {
        receives.push({ rank: location.rank, key: matched, enter: recvEnter, leave: time });
        matched = null;
        recvEnter = -1;
      }
    }
    reader.close();
    sendEnters.set(location.rank, enters);
  }
  const cpuSetOf = new Map(archive.ranks.map((location) => [location.rank, location.cpuSet ?? location.host]));
  const taken = new Map();
  for (const receive of receives) {
    const index = taken.get(receive.key) ?? 0;
    taken.set(receive.key, index + 1);
    const sent = sends.get(receive.key)?.[index];
    if (sent === undefined || sent <= receive.enter) continue;
    const cpuSet = cpuSetOf.get(receive.rank);
    let calls = 0;
    for (const [rank, enters] of sendEnters) {
      if (rank === receive.rank || cpuSetOf.get(rank) !== cpuSet) continue;
      for (const t of enters) if (t > sent && t < receive.leave) calls++;
    }
    const from = cpuSetOf.get(Number(receive.key.split('>')[0])) === cpuSet ? 'the same core' : 'another core';
    const key = `${cpuSet}\t${from}\t${calls}`;
    if (!delays.has(key)) delays.set(key, []);
    delays.get(key).push(receive.leave - sent);
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
process.stdout.write('| receiver pinned to | message from | calls of its core\'s other ranks in between | receives | median delay from the send |\n|---|---|---|---|---|\n');
for (const key of [...delays.keys()].sort()) {
  const [cpuSet, from, calls] = key.split('\t');
  const values = delays.get(key);
  process.stdout.write(`| CPU ${cpuSet} | ${from} | ${calls} | ${values.length} | ${(median(values) * 1e6).toFixed(0)} µs |\n`);
}
