// The communication-time table: parsing with messages that name the file and the JSON path,
// the presets, and one-way times between and beyond the measured sizes.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { COMM_TABLE_PRESETS, linkSecondsPerByte, loadCommTable, modelCommTable, oneWaySeconds, parseCommTable, presetCommTable, receiverTurnSeconds, recorderTurnSeconds, switchInSeconds, tableAtBound } from '../../server/src/network/commTable';
import { engineNetwork } from '../../server/src/pem/scenario';

const MEASURED = path.join(__dirname, '../../../samples/mpi/comm-table.json');
/** `causal-lens calibrate --repeat 3` on this machine: each point the median of three, with their extremes. */
const REPEATED = path.join(__dirname, '../../../test/fixtures/network/comm-table-repeat3.json');

const table = (extra: object) => JSON.stringify({ schema: 'causal-lens/comm-table@1', name: 't', source: 'measured', createdAt: 'x', eagerLimitBytes: 65536, ...extra });

test("the machine's calibration (samples/mpi/comm-table.json) loads and is increasing in size", () => {
  const t = loadCommTable(MEASURED);
  assert.equal(t.source, 'measured');
  assert.ok(t.intraNode!.length > 10);
  assert.ok(oneWaySeconds(t, 1 << 20, true) > oneWaySeconds(t, 8, true));
  // No interNode list: between nodes falls back to the intra-node times.
  assert.equal(oneWaySeconds(t, 1000, false), oneWaySeconds(t, 1000, true));
});

test('piecewise linear between sizes, linear past the last, flat below the first', () => {
  const t = parseCommTable(table({ interNode: [{ bytes: 0, seconds: 1e-5, samples: 1 }, { bytes: 100, seconds: 2e-5, samples: 1 }, { bytes: 200, seconds: 4e-5, samples: 1 }] }), 'x.json');
  assert.equal(oneWaySeconds(t, 0, false), 1e-5);
  assert.ok(Math.abs(oneWaySeconds(t, 50, false) - 1.5e-5) < 1e-18);
  assert.ok(Math.abs(oneWaySeconds(t, 150, false) - 3e-5) < 1e-18);
  assert.ok(Math.abs(oneWaySeconds(t, 400, false) - 8e-5) < 1e-18);
});

test('presets and models: latency + size / bandwidth', () => {
  assert.deepEqual(COMM_TABLE_PRESETS.map((p) => p.name), ['ethernet-10m', 'gbe', '10gbe', 'ib-100g']);
  const gbe = presetCommTable('gbe');
  assert.ok(Math.abs(oneWaySeconds(gbe, 125_000, false) - (50e-6 + 1e-3)) < 1e-12);
  assert.ok(Math.abs(oneWaySeconds(gbe, 3e8, false) - (50e-6 + 2.4)) < 1e-9);
  const m = modelCommTable('m', 1e-3, 1e6);
  assert.ok(Math.abs(oneWaySeconds(m, 1000, false) - 2e-3) < 1e-12);
  assert.throws(() => modelCommTable('bad', 1e-3, 0), /bandwidth must be a finite number > 0, got 0/);
  // A typo, not a network: an hour on the way, or a table's largest message longer than that.
  assert.throws(() => modelCommTable('slow', 1e300, 1e6), /slow: latency must be from 0 to 3600 s, got 1e\+300/);
  assert.throws(() => modelCommTable('thin', 1e-6, 1e-300), /thin: a 16 MiB message would take more than 3600 s/);
  // What a model writes reads back: its largest time is within the hour.
  const slowest = modelCommTable('slowest', 1, 2 ** 24 / 3598);
  assert.deepEqual(parseCommTable(JSON.stringify(slowest), 's.json'), slowest);
  assert.throws(() => parseCommTable(table({ source: 'model', model: { latencySeconds: 1, bandwidthBytesPerSecond: 1 } }), 'm.json'), /m\.json: \$\.model: a 16 MiB message would take more than 3600 s/);
  assert.throws(() => parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], schedulerSliceSeconds: 1e300 }), 'm.json'), /m\.json: \$\.schedulerSliceSeconds: expected seconds from 0 to 3600/);
  assert.throws(() => parseCommTable(table({ interNode: [{ bytes: 0, seconds: 1.7e308 }] }), 'a.json'), /a\.json: \$\.interNode\[0\]\.seconds: expected seconds from 0 to 3600/);
});

test('bad tables are refused with the file and the JSON path of the problem', () => {
  assert.throws(() => parseCommTable('{', 'a.json'), /^Error: a\.json: not JSON/);
  assert.throws(() => parseCommTable(table({ schema: 'other' }), 'a.json'), /a\.json: \$\.schema: expected "causal-lens\/comm-table@1"/);
  assert.throws(() => parseCommTable(table({ intraNode: [{ bytes: 4, seconds: 1 }, { bytes: 2, seconds: 1 }] }), 'a.json'), /a\.json: \$\.intraNode\[1\]\.bytes: sizes must increase/);
  assert.throws(() => parseCommTable(table({ interNode: [{ bytes: 0, seconds: -1 }] }), 'a.json'), /\$\.interNode\[0\]\.seconds/);
  assert.throws(() => parseCommTable(table({ source: 'model' }), 'a.json'), /\$\.model: required/);
  assert.throws(() => parseCommTable(table({}), 'a.json'), /needs intraNode or interNode/);
  assert.throws(() => parseCommTable(table({ host: 7, intraNode: [{ bytes: 0, seconds: 1e-6 }] }), 'a.json'), /a\.json: \$\.host: expected a host name/);
  assert.throws(() => parseCommTable(table({ host: '', intraNode: [{ bytes: 0, seconds: 1e-6 }] }), 'a.json'), /\$\.host: expected a host name/);
  assert.equal(parseCommTable(table({ host: 'node7', intraNode: [{ bytes: 0, seconds: 1e-6 }] }), 'a.json').host, 'node7');
  assert.throws(() => loadCommTable('/nonexistent.json'), /\/nonexistent\.json: cannot read the communication table \(no such file\)/);
});

test("a table measured three times keeps each point's fastest and slowest; the table at either bound takes them", () => {
  const t = loadCommTable(REPEATED);
  const lists = [t.intraNode!, t.sharedCore!, t.relayTurn!];
  for (const points of lists) for (const p of points) assert.ok(p.low! <= p.seconds && p.seconds <= p.high!, JSON.stringify(p));
  // This VM's speed moved while it calibrated: the 8-byte one-way's bounds are apart.
  const eight = t.intraNode!.find((p) => p.bytes === 8)!;
  assert.ok(eight.high! > eight.low!, JSON.stringify(eight));
  const low = tableAtBound(t, 'low')!;
  const high = tableAtBound(t, 'high')!;
  assert.equal(oneWaySeconds(low, 8, true), eight.low);
  assert.equal(oneWaySeconds(high, 8, true), eight.high);
  assert.ok(oneWaySeconds(low, 1000, true) <= oneWaySeconds(t, 1000, true) && oneWaySeconds(t, 1000, true) <= oneWaySeconds(high, 1000, true));
  assert.ok(switchInSeconds(low, 4) <= switchInSeconds(t, 4) && switchInSeconds(t, 4) <= switchInSeconds(high, 4));
  // The bounds' other fields are the table's; the table itself is left as it was.
  assert.equal(low.eagerLimitBytes, t.eagerLimitBytes);
  assert.equal(low.schedulerSliceSeconds, t.schedulerSliceSeconds);
  assert.equal(loadCommTable(REPEATED).intraNode![4].seconds, t.intraNode![4].seconds);
  // Measured once, or a model: no spread.
  assert.equal(tableAtBound(loadCommTable(MEASURED), 'low'), undefined);
  assert.equal(tableAtBound(presetCommTable('gbe'), 'high'), undefined);
  // A bound equal to its median everywhere is no spread either.
  assert.equal(tableAtBound(parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6, low: 1e-6, high: 2e-6 }] }), 's.json'), 'low'), undefined);
});

test("a point's low and high are checked: numbers around its median", () => {
  const point = (extra: object) => table({ intraNode: [{ bytes: 0, seconds: 1e-6, ...extra }] });
  assert.throws(() => parseCommTable(point({ low: 2e-6 }), 'a.json'), /a\.json: \$\.intraNode\[0\]\.low: expected a finite number from 0 to the point's seconds \(0\.000001\), got 0\.000002/);
  assert.throws(() => parseCommTable(point({ high: 5e-7 }), 'a.json'), /a\.json: \$\.intraNode\[0\]\.high: expected a number from the point's seconds/);
  assert.throws(() => parseCommTable(point({ low: 'fast' }), 'a.json'), /\$\.intraNode\[0\]\.low/);
  assert.throws(() => parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], relayTurn: [{ ranksPerCore: 2, seconds: 1e-6, high: -1 }, { ranksPerCore: 4, seconds: 1e-6 }] }), 'a.json'), /\$\.relayTurn\[0\]\.high/);
  assert.deepEqual(parseCommTable(point({ low: 5e-7, high: 3e-6 }), 'a.json').intraNode, [{ bytes: 0, seconds: 1e-6, samples: 0, low: 5e-7, high: 3e-6 }]);
});

test('the link holds a message for its size over the bandwidth: the model, or the slope of the largest sizes', () => {
  assert.equal(linkSecondsPerByte(presetCommTable('gbe')), 8 / 1e9);
  const measured = parseCommTable(table({ interNode: [{ bytes: 8, seconds: 1e-4 }, { bytes: 1000, seconds: 2e-4 }, { bytes: 3000, seconds: 4e-4 }] }), 'm.json');
  assert.ok(Math.abs(linkSecondsPerByte(measured) - 1e-7) < 1e-15);
  assert.equal(linkSecondsPerByte(parseCommTable(table({ interNode: [{ bytes: 8, seconds: 1e-4 }] }), 'one.json')), 0);
});

test("a receiver's turn on a shared core: measured points less the 2-rank one, linear between and past them", () => {
  const t = parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], sharedCore: [{ ranksPerCore: 2, seconds: 1e-6 }, { ranksPerCore: 4, seconds: 2e-6 }, { ranksPerCore: 8, seconds: 6e-6 }] }), 's.json');
  const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-15, `${a} ≠ ${b}`);
  close(receiverTurnSeconds(t, 1), 0);
  close(receiverTurnSeconds(t, 2), 0);
  close(receiverTurnSeconds(t, 3), 0.5e-6);
  close(receiverTurnSeconds(t, 4), 1e-6);
  close(receiverTurnSeconds(t, 6), 3e-6);
  close(receiverTurnSeconds(t, 10), 7e-6);
  assert.equal(receiverTurnSeconds(presetCommTable('gbe'), 8), 0, 'no measurement, no turn');
  assert.throws(() => parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], sharedCore: [{ ranksPerCore: 4, seconds: 1e-6 }, { ranksPerCore: 4, seconds: 2e-6 }] }), 'bad.json'), /bad\.json: \$\.sharedCore\[1\]\.ranksPerCore: must increase \(4 after 4\)/);
  assert.throws(() => parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], sharedCore: [{ ranksPerCore: 2, seconds: 'fast' }] }), 'bad.json'), /bad\.json: \$\.sharedCore\[0\]\.seconds: expected seconds from 0 to 3600/);
});

test('taking a shared core back after a wait: the 2-rank turn, or the polling turn per rank when longer', () => {
  // L(2) = 1, L(4) = 2, L(8) = 6 µs: polling turns 2·(L(k) − L(2))/(k − 2) = 1 at 4, 5/3 at 8.
  const t = parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], sharedCore: [{ ranksPerCore: 2, seconds: 1e-6 }, { ranksPerCore: 4, seconds: 2e-6 }, { ranksPerCore: 8, seconds: 6e-6 }] }), 's.json');
  const close = (a: number, b: number, what: string) => assert.ok(Math.abs(a - b) < 1e-15, `${what}: ${a} ≠ ${b}`);
  close(switchInSeconds(t, 1), 0, 'a core of its own: nothing to take back');
  close(switchInSeconds(t, 1.5), 0, 'more cores than half the ranks: none');
  close(switchInSeconds(t, 2), 1e-6, 'two ranks on a core: the whole one-way time is the turn');
  close(switchInSeconds(t, 4), 1e-6, 'polling turn 1 µs, not less than L(2)');
  close(switchInSeconds(t, 8), (2 * 5e-6) / 6, 'polling turn at 8');
  assert.equal(switchInSeconds(presetCommTable('gbe'), 8), 0, 'no measurement, no switch');
  // Measured relaying turns take precedence: piecewise linear in the ranks per core.
  const relayed = parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], sharedCore: [{ ranksPerCore: 2, seconds: 1e-6 }, { ranksPerCore: 8, seconds: 6e-6 }], relayTurn: [{ ranksPerCore: 2, seconds: 1e-6 }, { ranksPerCore: 4, seconds: 1.2e-6 }, { ranksPerCore: 8, seconds: 2e-6 }], recorderCallSeconds: 1.5e-7 }), 'r.json');
  close(switchInSeconds(relayed, 1), 0, 'a core of its own');
  close(switchInSeconds(relayed, 3), 1.1e-6, 'between the relaying turns at 2 and 4');
  close(switchInSeconds(relayed, 8), 2e-6, 'the relaying turn at 8');
  assert.equal(relayed.recorderCallSeconds, 1.5e-7);
  assert.throws(() => parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], relayTurn: [{ ranksPerCore: 4, seconds: 1e-6 }, { ranksPerCore: 2, seconds: 2e-6 }] }), 'bad.json'), /bad\.json: \$\.relayTurn\[1\]\.ranksPerCore: must increase \(2 after 4\)/);
  assert.throws(() => parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], relayTurn: [{ ranksPerCore: 2, seconds: 1e-6 }] }), 'one.json'), /one\.json: \$\.relayTurn: needs two or more points \(ranks per core\), got 1/);
  assert.throws(() => parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], recorderCallSeconds: -1 }), 'bad.json'), /bad\.json: \$\.recorderCallSeconds: expected seconds from 0 to 3600/);
});

test("the recorder's hidden cost per turn is added to the switch back only while the tracer stays", () => {
  const relayTurn = [{ ranksPerCore: 2, seconds: 1e-6 }, { ranksPerCore: 4, seconds: 1.2e-6 }, { ranksPerCore: 8, seconds: 2e-6 }];
  const recorderTurn = [{ ranksPerCore: 2, seconds: 0 }, { ranksPerCore: 4, seconds: 0.1e-6 }, { ranksPerCore: 8, seconds: 0.2e-6 }];
  const traced = parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], relayTurn, recorderTurn }), 't.json');
  const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-15, `${a} ≠ ${b}`);
  close(recorderTurnSeconds(traced, 1), 0);
  close(recorderTurnSeconds(traced, 2), 0);
  close(recorderTurnSeconds(traced, 6), 0.15e-6);
  close(recorderTurnSeconds(traced, 16), 0.4e-6);
  close(engineNetwork(traced, traced, true).switchIn!(4), 1.3e-6);
  close(engineNetwork(traced, traced).switchIn!(4), 1.2e-6);
  close(engineNetwork(traced, traced, true).switchIn!(1), 0);
  // A scenario's own measured table gives the turn; the recorder's cost is the traced run's.
  const other = parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], sharedCore: [{ ranksPerCore: 2, seconds: 2e-6 }, { ranksPerCore: 8, seconds: 9e-6 }], relayTurn: relayTurn.map((p) => ({ ...p, seconds: 2 * p.seconds })) }), 'o.json');
  close(engineNetwork(other, traced, true).switchIn!(8), 4.2e-6);
  // No turn measured, no switch back, with or without the recorder's cost.
  close(engineNetwork(presetCommTable('gbe'), presetCommTable('gbe'), true).switchIn!(8), 0);
  assert.throws(() => parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], recorderTurn: [{ ranksPerCore: 2, seconds: -1e-7 }] }), 'bad.json'), /bad\.json: \$\.recorderTurn\[0\]\.seconds: expected seconds from 0 to 3600/);
});

test("the network stack's CPU per message is read and checked", () => {
  const t = parseCommTable(table({ interNode: [{ bytes: 0, seconds: 1e-4 }], stackCpu: { perMessageSeconds: 3e-5, perByteSeconds: 2e-9 } }), 'n.json');
  assert.deepEqual(t.stackCpu, { perMessageSeconds: 3e-5, perByteSeconds: 2e-9 });
  assert.throws(() => parseCommTable(table({ interNode: [{ bytes: 0, seconds: 1e-4 }], stackCpu: { perMessageSeconds: -1, perByteSeconds: 0 } }), 'n.json'), /n\.json: \$\.stackCpu\.perMessageSeconds: expected seconds from 0 to 3600/);
  assert.throws(() => parseCommTable(table({ interNode: [{ bytes: 0, seconds: 1e-4 }], stackCpu: 5 }), 'n.json'), /n\.json: \$\.stackCpu: expected an object/);
  assert.equal(parseCommTable(table({ interNode: [{ bytes: 0, seconds: 1e-4 }], connectSeconds: 0.006 }), 'n.json').connectSeconds, 0.006);
  assert.throws(() => parseCommTable(table({ interNode: [{ bytes: 0, seconds: 1e-4 }], connectSeconds: 'slow' }), 'n.json'), /n\.json: \$\.connectSeconds: expected seconds from 0 to 3600/);
  assert.equal(parseCommTable(table({ interNode: [{ bytes: 0, seconds: 1e-4 }], clockReadSeconds: 6.1e-7 }), 'n.json').clockReadSeconds, 6.1e-7);
  assert.throws(() => parseCommTable(table({ interNode: [{ bytes: 0, seconds: 1e-4 }], clockReadSeconds: -1 }), 'n.json'), /n\.json: \$\.clockReadSeconds: expected seconds from 0 to 3600/);
  assert.equal(parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], schedulerTickSeconds: 0.004 }), 't.json').schedulerTickSeconds, 0.004);
  assert.throws(() => parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], schedulerTickSeconds: -0.004 }), 't.json'), /t\.json: \$\.schedulerTickSeconds: expected seconds from 0 to 3600/);
  assert.equal(parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], schedulerSliceSeconds: 0.0014 }), 't.json').schedulerSliceSeconds, 0.0014);
  assert.throws(() => parseCommTable(table({ intraNode: [{ bytes: 0, seconds: 1e-6 }], schedulerSliceSeconds: '1.4 ms' }), 't.json'), /t\.json: \$\.schedulerSliceSeconds: expected seconds from 0 to 3600/);
});

test('nodes that share memory are said so with a boolean', () => {
  assert.equal(parseCommTable(table({ interNode: [{ bytes: 0, seconds: 1e-6 }], interNodeSharedMemory: true }), 'n.json').interNodeSharedMemory, true);
  assert.equal(parseCommTable(table({ interNode: [{ bytes: 0, seconds: 1e-6 }] }), 'n.json').interNodeSharedMemory, undefined);
  assert.throws(() => parseCommTable(table({ interNode: [{ bytes: 0, seconds: 1e-6 }], interNodeSharedMemory: 'yes' }), 'n.json'), /n\.json: \$\.interNodeSharedMemory: expected true or false/);
});

test("a scenario's network gives each message size the table's one-way time, however many sizes a program sends", () => {
  const measured = loadCommTable(path.join(__dirname, '../../../samples/mpi/comm-table.json'));
  const network = engineNetwork(measured, measured);
  // More sizes than the network keeps (ONE_WAY_SIZES_KEPT), each asked twice, inside and across nodes.
  for (let round = 0; round < 2; round++) {
    for (let bytes = 0; bytes < 6000 * 97; bytes += 97) {
      assert.equal(network.oneWay(bytes, true), oneWaySeconds(measured, bytes, true));
      assert.equal(network.oneWay(bytes, false), oneWaySeconds(measured, bytes, false));
    }
  }
});
