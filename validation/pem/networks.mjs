// PEM validation of networks (N-PEM), re-runnable as root with the netns kit
// (../shared/tools/netns-mpi, see its README and reference/netns-mpi.md):
//   cp -r ../shared/tools/netns-mpi KIT && cd KIT && gcc -O2 -o nfqdelay nfqdelay.c -lnetfilter_queue -lnfnetlink && ./setup.sh
//   npx tsc -p . && scripts/build-mpi.sh && node validation/pem/networks.mjs --kit KIT [--reps 5]
//   (then KIT/teardown.sh)
// Two emulated nodes (namespaces ns0, ns1 joined by a veth link shaped by nfqdelay), halo with 4
// ranks, 2 per node, Open MPI over TCP. For each network: calibrate (ping-pong inside a node and
// across the link), trace one run, run REPS untraced runs. Every trace predicts every network
// (its own calibration as the traced network, the other's as the scenario), compared with the
// median elapsed time of the untraced runs (the program's own "elapsed" lines). Prints a
// Markdown table and writes networks.json beside this script.

import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(import.meta.url);
const { predictScenarios } = require(path.join(root, 'out/server/src/pem/index.js'));
const { COMM_TABLE_SCHEMA } = require(path.join(root, 'out/server/src/network/commTable.js'));
const { parsePingPong } = require(path.join(root, 'out/server/src/mpi/calibration.js'));

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : fallback;
}

const kit = option('kit');
if (!kit) throw new Error('--kit DIR: a prepared copy of ../shared/tools/netns-mpi (see the header of this script)');
const reps = Number(option('reps', '5'));
const build = process.env.CAUSAL_LENS_MPI_BUILD || path.join(root, 'build/mpi');
const PROGRAM = [path.join(build, 'halo'), '400000', '100'];
const NETWORKS = [
  { name: 'unshaped', shape: ['none', '0'] },
  { name: '100 Mbit/s + 100 µs', shape: ['100', '100'] },
  { name: '10 Mbit/s + 1 ms', shape: ['10', '1000'] },
];
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-pem-networks-'));
const sameNode = path.join(work, 'hosts-one-node');
fs.writeFileSync(sameNode, 'node0 slots=2\n');

async function mpirun(np, hostfile, env, argv) {
  const args = ['-np', String(np), '--hostfile', hostfile, '--mca', 'btl', 'tcp,self', '--mca', 'mpi_yield_when_idle', '1', '--bind-to', 'none'];
  for (const [k, v] of Object.entries(env)) args.push('-x', `${k}=${v}`);
  const { stdout } = await run('timeout', ['600', path.join(kit, 'mpirun-ns.sh'), ...args, ...argv], { maxBuffer: 1 << 26 });
  return stdout;
}

const elapsed = (stdout) => Math.max(...[...stdout.matchAll(/elapsed rank=\d+ seconds=([\d.]+)/g)].map((m) => Number(m[1])));
const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const measured = [];
try {
  for (const network of NETWORKS) {
    await run(path.join(kit, 'shape.sh'), network.shape);
    const pingpong = [path.join(build, 'causal-lens-pingpong'), '0.05'];
    const table = {
      schema: COMM_TABLE_SCHEMA,
      name: network.name,
      source: 'measured',
      createdAt: new Date().toISOString(),
      eagerLimitBytes: 65536,
      intraNode: parsePingPong(await mpirun(2, sameNode, {}, pingpong), `${network.name}: ping-pong inside a node`),
      interNode: parsePingPong(await mpirun(2, path.join(kit, 'hosts2'), {}, pingpong), `${network.name}: ping-pong across the link`),
    };
    const traceDir = path.join(work, network.shape.join('-'));
    await mpirun(4, path.join(kit, 'hosts4'), { LD_PRELOAD: path.join(build, 'libcausal-lens-recorder.so'), CAUSAL_LENS_TRACE_DIR: traceDir }, PROGRAM);
    const times = [];
    for (let rep = 0; rep < reps; rep++) times.push(elapsed(await mpirun(4, path.join(kit, 'hosts4'), {}, PROGRAM)));
    measured.push({ network, table, trace: path.join(traceDir, 'traces.otf2'), times });
    process.stderr.write(`${network.name}: one-way 8 B across ${(table.interNode.find((p) => p.bytes === 8).seconds * 1e6).toFixed(0)} µs; untraced ${times.map((t) => t.toFixed(3)).join(', ')} s\n`);
  }
} finally {
  await run(path.join(kit, 'shape.sh'), ['none', '0']);
}

const rows = [];
for (const from of measured) {
  for (const to of measured) {
    // The scenario's network is the target's calibration, its intra-node part too (TCP inside a
    // namespace). The two namespaces share this machine's 2 cores: one core per node.
    const file = path.join(work, `table-${to.network.shape.join('-')}.json`);
    fs.writeFileSync(file, JSON.stringify(to.table));
    const [result] = (await predictScenarios(from.trace, [{ map: [0, 0, 1, 1], network: file }], { tracedNetwork: from.table, coresPerNode: 1, eventCostSeconds: 'auto' })).scenarios;
    const med = median(to.times);
    rows.push({ from: from.network.name, to: to.network.name, measuredMedianSeconds: med, spreadPercent: (Math.max(...to.times) / Math.min(...to.times) - 1) * 100, predictedSeconds: result.predictedSeconds, errorPercent: (result.predictedSeconds / med - 1) * 100 });
  }
}
fs.writeFileSync(path.join(here, 'networks.json'), `${JSON.stringify({ date: new Date().toISOString(), reps, rows }, null, 1)}\n`);
process.stdout.write('| traced on | predicted for | measured (median, untraced) | spread | predicted | error |\n|---|---|---|---|---|---|\n');
for (const r of rows) process.stdout.write(`| ${r.from} | ${r.to} | ${r.measuredMedianSeconds.toFixed(3)} s | ${r.spreadPercent.toFixed(0)}% | ${r.predictedSeconds.toFixed(3)} s | ${r.errorPercent >= 0 ? '+' : ''}${r.errorPercent.toFixed(1)}% |\n`);
fs.rmSync(work, { recursive: true, force: true });
