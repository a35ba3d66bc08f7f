// SimGrid SMPI as a second opinion beside PEM: simulates the MPI sample programs (samples/mpi/*.c)
// on a platform that mirrors the validation's emulated nodes, so the README can show what SMPI
// predicts for the same cases (validate.mjs: placements 2/1 … 8/2; networks.mjs: halo over three
// networks). Online mode: the program is compiled with smpicc and really runs (its computation is
// timed), communication is simulated.
//
// Run (Debian libsimgrid-dev 3.32: smpicc, smpirun):
//   npx tsc -p . && node validation/pem/smpi.mjs [--reps 3] [--table FILE] [--programs a,b]
//     [--configs 2/1,4/2] [--args "pipeline=200 65536"]...
// As a module: buildSmpi(buildDir), smpiSeconds({ program, args, np, nodes, network }),
// smpiNetworkFromTable(table).
//
// Platform (written to a temp dir per run, then deleted): one <zone routing="Full">, hosts node0…
// of ONE core each (core="1", like pin-rank.sh's one core per emulated node), each host a route to
// itself over its own loopback link (intra-node latency/bandwidth; SMPI's co-located ranks talk
// over the loopback, mpi-whatif.md §1.2), and between two hosts one SPLITDUPLEX link (a full-duplex
// cable: one FIFO per direction, like the netns kit's shaper) with the inter-node latency and
// bandwidth. The hostfile lists one host per rank in rank order (blocks, rank r on node
// floor(r·nodes/np), as pin-rank.sh), with a trailing newline (simgrid#136 drops a last line
// without one). Several ranks on one host share its core fairly (mpi-whatif.md §1.2).
//
// SimGrid settings and why (mpi-whatif.md §1.2 and §3.3):
// - --cfg=smpi/host-speed:1Gf with hosts of speed 1Gf: one second of measured computation costs
//   one simulated second (the default, 20 kf/s, is wrong for any real host). smpirun runs under
//   `taskset -c 0`: all ranks are threads of one process, so their computation is measured on one
//   core, one burst at a time.
// - -DSMPI_NO_OVERRIDE_MALLOC when compiling: smpi_helpers.h otherwise macro-replaces malloc /
//   calloc / free with its shared-malloc interceptors, which made compute 2.9× slower (§1.2).
// - smpi/lat-factor:0:1 and smpi/bw-factor:0:1 (not `:1`, which segfaults): raw link latency and
//   bandwidth, instead of the factors fitted on Stampede that double small-message latency (§3.6).
// - smpi/async-small-thresh and smpi/send-is-detached-thresh = eagerLimitBytes + 1 (SMPI compares
//   with `<`): messages up to the eager limit leave at once without waiting for the receive, as
//   Open MPI's eager protocol; larger ones wait for the matching receive (rendezvous).
// - smpi/coll-selector:ompi: Open MPI's collective algorithms (the default, naive, is not).
// - network/crosstraffic:0: no simulated ACK flow on the reverse direction, so a one-way time is
//   latency + bytes / bandwidth, what the comm table measured.
// - smpi/test left at its default (each failing MPI_Test sleeps 100 µs, growing with consecutive
//   failures): with smpi/test:0, pipeline's MPI_Test polling loop on 2 hosts never ended (simulated
//   time stopped advancing: a livelock), and on shared hosts it ran ~100× slower.
// Verified with the calibration ping-pong built with smpicc: same host 1 µs / 1 GBps loopback gives
// 1.02 µs at 0 B and 1.05 ms at 1 MiB; across a 100 µs / 12.5 MBps link 101 µs and 84.0 ms.

import './closed-pipe.mjs';
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
const samples = path.join(root, 'samples/mpi');

/** The programs and arguments of validate.mjs. */
export const PROGRAMS = {
  master_worker: ['300'],
  halo: ['400000', '60'],
  pipeline: ['200', '65536'],
  alltoall_sort: ['400000', '3'],
  latency: ['10000'],
};
export const CONFIGS = ['2/1', '2/2', '4/1', '4/2', '8/1', '8/2'];
const HOST_SPEED = '1Gf';

const defaultBuildDir = () => process.env.CAUSAL_LENS_MPI_BUILD || path.join(root, 'build/mpi');
const builds = new Map();

/** Compiles the sample programs with smpicc into buildDir/smpi/ (once per process; make-like mtime check). */
export function buildSmpi(buildDir = defaultBuildDir()) {
  const out = path.join(buildDir, 'smpi');
  if (!builds.has(out)) {
    builds.set(
      out,
      (async () => {
        fs.mkdirSync(out, { recursive: true });
        const header = fs.statSync(path.join(samples, 'counts.h')).mtimeMs;
        for (const program of Object.keys(PROGRAMS)) {
          const source = path.join(samples, `${program}.c`);
          const binary = path.join(out, program);
          const newest = Math.max(header, fs.statSync(source).mtimeMs);
          if (fs.existsSync(binary) && fs.statSync(binary).mtimeMs >= newest) continue;
          try {
            await run('smpicc', ['-O2', '-g', '-Wall', '-DSMPI_NO_OVERRIDE_MALLOC', `-I${samples}`, '-o', binary, source, '-lm'], {
              maxBuffer: 1 << 24,
            });
          } catch (error) {
            if (error.code === 'ENOENT') throw new Error('smpi: smpicc not found; install SimGrid (apt-get install libsimgrid-dev)');
            throw new Error(`smpi: smpicc failed on ${program}.c: ${(error.stderr || error.message).trim()}`);
          }
        }
        return out;
      })(),
    );
    builds.get(out).catch(() => builds.delete(out));
  }
  return builds.get(out);
}

/**
 * The network object of smpiSeconds from a comm table (causal-lens/comm-table@1): per list,
 * latency = one-way time of the smallest message, bandwidth = 1 / slope between the two largest
 * sizes (the project's linkSecondsPerByte). A table with only one list uses it for both.
 */
export function smpiNetworkFromTable(table) {
  const require = createRequire(import.meta.url);
  let commTable;
  try {
    commTable = require(path.join(root, 'out/server/src/network/commTable.js'));
  } catch {
    throw new Error('smpi: out/server/src/network/commTable.js missing; build it with `npx tsc -p .`');
  }
  const link = (points) => {
    if (!points || points.length === 0) return undefined;
    const smallest = points.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    const secondsPerByte = commTable.linkSecondsPerByte({ interNode: [...points].sort((a, b) => a.bytes - b.bytes) });
    if (!(secondsPerByte > 0)) throw new Error('smpi: comm table has no usable bandwidth (needs two sizes with growing time)');
    return { latencySeconds: smallest.seconds, bandwidthBytesPerSecond: 1 / secondsPerByte };
  };
  const model = table.model && { latencySeconds: table.model.latencySeconds, bandwidthBytesPerSecond: table.model.bandwidthBytesPerSecond };
  const inter = link(table.interNode) ?? model;
  const intra = link(table.intraNode) ?? inter;
  if (!intra) throw new Error('smpi: comm table has neither intraNode, interNode nor model');
  return { intraNode: intra, interNode: inter ?? intra, eagerLimitBytes: table.eagerLimitBytes ?? 65536 };
}

const num = (x) => Number(x).toPrecision(12);

function platformXml(nodes, network) {
  const lines = [
    "<?xml version='1.0'?>",
    '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">',
    '<platform version="4.1">',
    '  <zone id="world" routing="Full">',
  ];
  const { intraNode: lo, interNode: net } = network;
  for (let k = 0; k < nodes; k++) lines.push(`    <host id="node${k}" speed="${HOST_SPEED}" core="1"/>`);
  for (let k = 0; k < nodes; k++)
    lines.push(`    <link id="lo${k}" bandwidth="${num(lo.bandwidthBytesPerSecond)}Bps" latency="${num(lo.latencySeconds)}s"/>`);
  for (let a = 0; a < nodes; a++)
    for (let b = a + 1; b < nodes; b++)
      lines.push(
        `    <link id="net${a}-${b}" bandwidth="${num(net.bandwidthBytesPerSecond)}Bps" latency="${num(net.latencySeconds)}s" sharing_policy="SPLITDUPLEX"/>`,
      );
  for (let k = 0; k < nodes; k++) lines.push(`    <route src="node${k}" dst="node${k}"><link_ctn id="lo${k}"/></route>`);
  for (let a = 0; a < nodes; a++)
    for (let b = a + 1; b < nodes; b++) {
      lines.push(`    <route src="node${a}" dst="node${b}" symmetrical="NO"><link_ctn id="net${a}-${b}" direction="UP"/></route>`);
      lines.push(`    <route src="node${b}" dst="node${a}" symmetrical="NO"><link_ctn id="net${a}-${b}" direction="DOWN"/></route>`);
    }
  lines.push('  </zone>', '</platform>', '');
  return lines.join('\n');
}

function checkNetwork(network) {
  for (const part of ['intraNode', 'interNode']) {
    const l = network?.[part];
    if (!l || !(l.latencySeconds >= 0) || !(l.bandwidthBytesPerSecond > 0))
      throw new Error(`smpi: network.${part} needs latencySeconds ≥ 0 and bandwidthBytesPerSecond > 0`);
  }
  if (!(network.eagerLimitBytes >= 0)) throw new Error('smpi: network.eagerLimitBytes must be ≥ 0');
}

/**
 * SMPI's simulated run time of `program args` (a sample name, or a path to an smpicc binary) with
 * np ranks in blocks on `nodes` one-core hosts: the max over ranks of the `elapsed` lines.
 */
export async function smpiSeconds({ program, args = [], np, nodes, network, buildDir }) {
  const config = `${program} ${args.join(' ')} on ${np}/${nodes}`;
  checkNetwork(network);
  if (!(Number.isInteger(np) && Number.isInteger(nodes) && np >= 1 && nodes >= 1 && nodes <= np))
    throw new Error(`smpi: ${config}: need integers 1 ≤ nodes ≤ np`);
  const binary = program.includes('/') ? program : path.join(await buildSmpi(buildDir), program);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-smpi-'));
  try {
    const platform = path.join(work, 'platform.xml');
    const hostfile = path.join(work, 'hostfile');
    fs.writeFileSync(platform, platformXml(nodes, network));
    fs.writeFileSync(hostfile, Array.from({ length: np }, (_, r) => `node${Math.floor((r * nodes) / np)}\n`).join(''));
    const eager = String(Math.floor(network.eagerLimitBytes) + 1);
    const argv = [
      '-c', '0', 'smpirun', '-np', String(np), '-platform', platform, '-hostfile', hostfile,
      '--log=root.thres:warning',
      `--cfg=smpi/host-speed:${HOST_SPEED}`,
      '--cfg=smpi/lat-factor:0:1',
      '--cfg=smpi/bw-factor:0:1',
      `--cfg=smpi/async-small-thresh:${eager}`,
      `--cfg=smpi/send-is-detached-thresh:${eager}`,
      '--cfg=smpi/coll-selector:ompi',
      '--cfg=network/crosstraffic:0',
      `--cfg=smpi/tmpdir:${work}`,
      binary, ...args.map(String),
    ];
    let stdout;
    try {
      ({ stdout } = await run('taskset', argv, { cwd: work, maxBuffer: 1 << 26, timeout: 300_000, killSignal: 'SIGKILL' }));
    } catch (error) {
      const detail = (error.stderr || '').trim().split('\n').slice(-8).join('\n') || error.message;
      throw new Error(`smpi: ${config} failed (exit ${error.code ?? error.signal}):\n${detail}`);
    }
    const times = [...stdout.matchAll(/elapsed rank=(\d+) seconds=([\d.eE+-]+)/g)];
    const ranks = new Set(times.map((m) => m[1]));
    if (ranks.size !== np) throw new Error(`smpi: ${config}: expected ${np} "elapsed" lines, got ${ranks.size}:\n${stdout.slice(-2000)}`);
    return Math.max(...times.map((m) => Number(m[2])));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

// ----------------------------------------------------------------------------- standalone mode

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const spread = (v) => (100 * (Math.max(...v) - Math.min(...v))) / median(v);

/** The network validation's shaped links: the table's link plus the added one-way delay, capped at the rate. */
function shaped(network, megabitsPerSecond, addedSeconds) {
  const rate = (megabitsPerSecond * 1e6) / 8;
  const inter = network.interNode;
  return {
    ...network,
    interNode: {
      latencySeconds: inter.latencySeconds + addedSeconds,
      bandwidthBytesPerSecond: Math.min(inter.bandwidthBytesPerSecond, rate),
    },
  };
}

async function main() {
  const argv = process.argv.slice(2);
  const option = (name, fallback) => {
    const i = argv.indexOf(`--${name}`);
    return i >= 0 ? argv[i + 1] : fallback;
  };
  const reps = Number(option('reps', '3'));
  const tableFile = option('table', path.join(samples, 'comm-table.json'));
  const programs = { ...PROGRAMS };
  argv.forEach((a, i) => {
    if (a !== '--args') return;
    const [name, rest] = argv[i + 1].split('=');
    if (!(name in programs)) throw new Error(`--args: unknown program ${name}`);
    programs[name] = rest.trim().split(/\s+/);
  });
  const names = option('programs', Object.keys(programs).join(',')).split(',');
  const configs = option('configs', CONFIGS.join(',')).split(',');
  const table = JSON.parse(fs.readFileSync(tableFile, 'utf8'));
  const network = smpiNetworkFromTable(table);
  const started = Date.now();
  await buildSmpi();
  const built = Date.now();
  const us = (s) => (s * 1e6).toFixed(2);
  const gbs = (b) => (b / 1e9).toFixed(3);
  console.log(`SMPI (SimGrid online) with ${path.relative(root, tableFile)}${table.interNode ? '' : ' (intraNode only: used for inter-node too)'}:`);
  console.log(
    `intra-node ${us(network.intraNode.latencySeconds)} µs, ${gbs(network.intraNode.bandwidthBytesPerSecond)} GB/s; ` +
      `inter-node ${us(network.interNode.latencySeconds)} µs, ${gbs(network.interNode.bandwidthBytesPerSecond)} GB/s; eager ≤ ${network.eagerLimitBytes} B; ${reps} reps\n`,
  );
  console.log('| program | config | SMPI simulated s (median) | spread |');
  console.log('|---|---|---|---|');
  for (const program of names) {
    for (const config of configs) {
      const [np, nodes] = config.split('/').map(Number);
      const runs = [];
      try {
        for (let r = 0; r < reps; r++) runs.push(await smpiSeconds({ program, args: programs[program], np, nodes, network }));
        console.log(`| ${program} ${programs[program].join(' ')} | ${config} | ${median(runs).toFixed(4)} | ${spread(runs).toFixed(1)} % |`);
      } catch (error) {
        console.log(`| ${program} ${programs[program].join(' ')} | ${config} | fails | ${error.message.split('\n')[0]} |`);
        process.stderr.write(`${error.message}\n`);
      }
    }
  }
  const networks = [
    ['unshaped (the table)', network],
    ['100 Mbit/s + 100 µs', shaped(network, 100, 100e-6)],
    ['10 Mbit/s + 1 ms', shaped(network, 10, 1e-3)],
  ];
  console.log('\nhalo 400000 100, 4 ranks on 2 hosts (networks.mjs):\n');
  console.log('| network | inter-node latency, bandwidth | SMPI simulated s (median) | spread |');
  console.log('|---|---|---|---|');
  for (const [name, net] of networks) {
    const runs = [];
    for (let r = 0; r < reps; r++) runs.push(await smpiSeconds({ program: 'halo', args: ['400000', '100'], np: 4, nodes: 2, network: net }));
    console.log(
      `| ${name} | ${us(net.interNode.latencySeconds)} µs, ${(net.interNode.bandwidthBytesPerSecond / 1e6).toFixed(2)} MB/s | ${median(runs).toFixed(4)} | ${spread(runs).toFixed(1)} % |`,
    );
  }
  console.log(`\nwall time: build ${((built - started) / 1000).toFixed(1)} s, simulations ${((Date.now() - built) / 1000).toFixed(1)} s`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    process.stderr.write(`${error.stack || error.message}\n`);
    process.exit(1);
  });
}
