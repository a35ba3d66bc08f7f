// The perf script importer on real perf 6.1 output (test/fixtures/perf, see its README):
// record grammar, frames, srcline lines, inlined frames, sideband records, blocked
// samples from sched_switch + PERF_RECORD_SWITCH, and chunking invariance.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { ProfileReader, parseProfileText } from '../../server/src/import';
import { parseFrameLine } from '../../server/src/import/perfScript';
import { mulberry32 } from '../../server/src/causal/random';
import { attributeSamples, totalMs, workspaceFilter } from '../../server/src/samples/attribution';

const FIXTURES = path.join(__dirname, '../../../test/fixtures/perf');
const read = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
const parse = (name: string, text = read(name)) => parseProfileText(text, name);

/** Records whose header names the event, counted straight from the text. */
const countHeaders = (text: string, event: string) => text.split('\n').filter((l) => l.includes(` ${event}:`)).length;

test('default perf script with frame-pointer callchains: one sample per record, weighted by its period', () => {
  const text = read('01-script-default-fpcallchain.txt');
  const profile = parse('01', text);
  assert.equal(profile.format, 'perf-script');
  assert.deepEqual(profile.problems.filter((p) => p.severity === 'error'), []);
  const data = profile.samples!;
  const ms = data.stacks.reduce((sum, s) => sum + s.ms, 0);
  assert.equal(ms, countHeaders(text, 'task-clock') * 1, 'task-clock -c 1000000: 1 ms each');
  assert.ok(data.stacks.every((s) => s.cls === 'onCpu' && /^demo \d+$/.test(s.thread)));
  const names = new Set(data.frames.map((f) => f.function));
  assert.ok(names.has('__schedule') || [...names].some((n) => n.startsWith('entry_SYSCALL')) || names.has('compute_thread'), [...names].join(','));
  assert.ok(data.frames.some((f) => f.dso === '[kernel.kallsyms]') || data.frames.some((f) => f.dso?.endsWith('/demo')));
});

test('a command name with spaces is kept whole (the header is anchored on the timestamp)', () => {
  const text = read('01-script-default-fpcallchain.txt').replace(/^demo /gm, 'V8 Worker Thread ');
  const data = parse('01-spaces', text).samples!;
  assert.ok(data.stacks.length > 0);
  assert.ok(data.stacks.every((s) => s.thread.startsWith('V8 Worker Thread ')), data.stacks.map((s) => s.thread).join('|'));
});

test('srcline lines (two-space indent, no TAB) belong to the frame above, also on no-callchain samples', () => {
  const profile = parse('02-script-fields-srcline.txt');
  const frames = profile.samples!.frames;
  assert.ok(frames.some((f) => f.function === '__sin_fma' && f.file === 's_sin.c' && f.line === 129), JSON.stringify(frames.slice(0, 4)));
  // A srcline is never mistaken for a frame or a record.
  assert.ok(frames.every((f) => !/\.c:\d+/.test(f.function)));
  const leafOnly = parse('06-script-no-callchain-and-srccode.txt');
  assert.deepEqual(leafOnly.problems.filter((p) => p.severity === 'error'), []);
  const lines = attributeSamples(leafOnly.samples!, workspaceFilter([])).lines.map((l) => `${l.file}:${l.line}`);
  assert.ok(lines.includes('demo.c:22') && lines.includes('demo.c:23'), lines.join(' '));
});

test('(inlined) frames without a dso are kept as inlined frames when the binary cannot be read', () => {
  const profile = parse('04-script-dwarf-inline-srcline.txt');
  const inlined = profile.samples!.frames.filter((f) => f.inlined);
  assert.ok(inlined.some((f) => f.function === 'kernel_step' && f.file === 'demo.c' && f.line === 16), JSON.stringify(inlined));
  // Innermost workspace-like frame first: the inlined helper's line, as perf report --sort srcline.
  const top = attributeSamples(profile.samples!, (file) => file === 'demo.c').lines[0];
  assert.equal(`${top.file}:${top.line}`, 'demo.c:16');
});

test('frame lines: kernel addresses, [unknown], symbol+offset, (inlined), PLT stubs', () => {
  assert.deepEqual(parseFrameLine('\tffffffff821facd8 __schedule+0x618 ([kernel.kallsyms])')?.symbol, '__schedule');
  assert.deepEqual(parseFrameLine('\t2f6f6d65642f6966 [unknown] ([unknown])')?.dso, '[unknown]');
  const inlined = parseFrameLine('\t            144f kernel_step+0x7f (inlined)')!;
  assert.equal(inlined.inlined, true);
  assert.equal(inlined.dso, undefined);
  assert.equal(inlined.ip, 0x144f);
  assert.equal(inlined.offset, 0x7f);
  const plt = parseFrameLine('\t            1070 cos@plt+0x0 (/home/dev/perfdemo/demo)')!;
  assert.deepEqual([plt.symbol, plt.offset, plt.dso], ['cos@plt', 0, '/home/dev/perfdemo/demo']);
  assert.equal(parseFrameLine('\tnot a frame'), undefined);
});

test('sched_switch + PERF_RECORD_SWITCH: a futex wait becomes a sync blocked sample lasting from switch-out to switch-in', () => {
  const text = read('05-script-dwarf-sched_switch-switch-events.txt');
  const data = parse('05', text).samples!;
  const sync = data.stacks.filter((s) => s.cls === 'sync');
  assert.equal(sync.length, 1);
  // Main thread 6578: SWITCH OUT at 1280.562762, SWITCH IN at 1280.563820 (the lines of the fixture).
  const out = /6578\/6578\s+(\d+\.\d+): PERF_RECORD_SWITCH OUT/.exec(text)!;
  const back = /6578\/6578\s+(\d+\.\d+): PERF_RECORD_SWITCH IN/.exec(text)!;
  assert.ok(Math.abs(sync[0].ms - (Number(back[1]) - Number(out[1])) * 1000) < 1e-6, String(sync[0].ms));
  assert.equal(sync[0].thread, 'demo 6578');
  // Switches still open when the text ends are counted, not dropped silently.
  assert.ok(data.skipped.switchOutAtEnd > 0);
  const fns = sync[0].frames.map((id) => data.frames[id].function);
  assert.ok(fns.includes('wait_for_turn') && fns.includes('futex_wait'), fns.join(' '));
});

test('D state is I/O, R is a wait for a CPU, S outside locks is other', () => {
  const base = read('05-script-dwarf-sched_switch-switch-events.txt');
  // Close every open switch-out with a SWITCH IN, so that each becomes a blocked sample.
  const closed = base + '\ndemo  6578/6581   1280.570000: PERF_RECORD_SWITCH IN\ndemo  6578/6578   1280.570000: PERF_RECORD_SWITCH IN\ndemo  6578/6582   1280.570000: PERF_RECORD_SWITCH IN\n';
  const data = parse('05-closed', closed).samples!;
  const classes = new Set(data.stacks.map((s) => s.cls));
  assert.ok(classes.has('io') && classes.has('sched') && classes.has('sync'), [...classes].join(','));
  const sleeping = closed.replace(/prev_state=S/g, 'prev_state=S').replace(/futex_wait\+0x67/g, 'do_nanosleep+0x5e').replace(/futex|cond_wait/g, 'sleep');
  assert.ok(parse('05-sleep', sleeping).samples!.stacks.some((s) => s.cls === 'other'));
});

test('a clock sample taken inside an interrupt handler is a wait for a CPU, not the thread\'s CPU', () => {
  // 35 ms of samples/blocking's fsync and pread calls, recorded by `causal-lens record` while
  // another process loaded the disk: 7 of its 16 task-clock samples entered an interrupt.
  const text = read('30-record-blocking-interrupts.txt');
  const records = text.split(/\n\s*\n/).filter((record) => / task-clock: /.test(record));
  const interrupted = records.filter((record) => /\basm_(common_interrupt|sysvec_\w+)\+/.test(record)).length;
  assert.ok(interrupted > 0 && interrupted < records.length, `${interrupted} of ${records.length}`);
  const data = parse('30', text).samples!;
  const classMs = (cls: string, frame: string) => data.stacks.filter((s) => s.cls === cls && s.frames.some((id) => data.frames[id].function === frame)).reduce((sum, s) => sum + s.ms, 0);
  const inHandler = (s: { frames: number[] }) => s.frames.some((id) => data.frames[id].function === 'handle_softirqs' || data.frames[id].function === 'common_interrupt');
  assert.equal(classMs('sched', 'asm_common_interrupt') + classMs('sched', 'asm_sysvec_apic_timer_interrupt'), interrupted, 'one ms each');
  assert.equal(data.stacks.filter((s) => s.cls === 'onCpu').reduce((sum, s) => sum + s.ms, 0), records.length - interrupted);
  assert.ok(data.stacks.filter((s) => s.cls === 'onCpu').every((s) => !inHandler(s)));
  // The waits around them are still the I/O they are.
  assert.ok(classMs('io', '__x64_sys_fsync') > 0 && classMs('io', '__x64_sys_pread64') > 0);
});

test('records perf lost (PERF_RECORD_LOST) are counted in one warning at the first, and the samples are still read', () => {
  const text = read('31-script-lost-events.txt');
  const profile = parse('31', text);
  const lostLines = text.split('\n').map((line, i) => ({ line: i + 1, lost: /PERF_RECORD_LOST lost (\d+)/.exec(line) })).filter((entry) => entry.lost);
  assert.equal(lostLines.length, 2);
  const lost = lostLines.reduce((sum, entry) => sum + Number(entry.lost![1]), 0);
  const warnings = profile.problems.filter((p) => /perf lost/.test(p.message));
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].line, lostLines[0].line);
  assert.match(warnings[0].message, new RegExp(`perf lost ${lost} records`));
  const sampledMs = profile.samples!.stacks.reduce((sum, s) => sum + s.ms, 0);
  assert.ok(Math.abs(sampledMs - countHeaders(text, 'task-clock') * 0.01) < 1e-9, `task-clock -c 10000: 0.01 ms each, ${sampledMs} in all`);
  // A LOST record without its count is named, not counted as some number.
  const garbled = parse('31-garbled', text.replace('PERF_RECORD_LOST lost 22', 'PERF_RECORD_LOST lost ?')).problems;
  assert.match(garbled.find((p) => /perf lost/.test(p.message))!.message, /perf lost 28 records/);
  assert.deepEqual(garbled.filter((p) => /LOST record that could not be read/.test(p.message)).map((p) => p.line), [lostLines[1].line]);
  // Without --show-lost-events nothing is said, as nothing is known.
  assert.ok(parse('31-unshown', text.replace(/^.*PERF_RECORD_LOST.*\n/gm, '')).problems.every((p) => !/perf lost/.test(p.message)));
});

test('perf script -F weight (bperf): a sample counts period x (1 + weight)', () => {
  const text = read('12-script-weight-field.txt');
  const plain = parse('12', text).samples!;
  assert.ok(plain.stacks.every((s) => s.cls === 'onCpu'));
  const weighted = parse('12-w', text.replace(/task-clock:\s+0$/m, 'task-clock:                4')).samples!;
  const blocked = weighted.stacks.filter((s) => s.cls !== 'onCpu');
  assert.equal(blocked.reduce((sum, s) => sum + s.ms, 0), 5);
  assert.equal(totalOf(weighted) - totalOf(plain), 4);
});

const totalOf = (data: { stacks: { ms: number }[] }) => data.stacks.reduce((sum, s) => sum + s.ms, 0);

test('unreadable lines are named with their line number; the rest is still read', () => {
  const text = read('01-script-default-fpcallchain.txt');
  const lines = text.split('\n');
  lines.splice(3, 0, '@@@ not perf output @@@');
  const profile = parse('01-bad', lines.join('\n'));
  const error = profile.problems.find((p) => p.severity === 'error')!;
  assert.equal(error.line, 4);
  assert.match(error.message, /unreadable line/);
  assert.equal(profile.skipped.malformed, 1);
  assert.ok(totalOf(profile.samples!) >= totalOf(parse('01-script-default-fpcallchain.txt').samples!) - 1);
});

test('the same profile whatever the chunking', () => {
  const random = mulberry32(7);
  for (const name of ['01-script-default-fpcallchain.txt', '05-script-dwarf-sched_switch-switch-events.txt', '06-script-no-callchain-and-srccode.txt']) {
    const text = read(name);
    const reader = new ProfileReader(name);
    for (let i = 0; i < text.length; ) {
      const size = 1 + Math.floor(random() * 40);
      reader.push(text.slice(i, i + size));
      i += size;
    }
    assert.deepEqual(reader.end(), parse(name, text));
  }
});

test('attribution totals: every millisecond is in a line or counted as outside the workspace', () => {
  const data = parse('05-script-dwarf-sched_switch-switch-events.txt').samples!;
  const attribution = attributeSamples(data, workspaceFilter([]));
  const inLines = attribution.lines.reduce((sum, l) => sum + totalMs(l.ms), 0);
  assert.ok(Math.abs(inLines + totalMs(attribution.outside) - totalMs(attribution.total)) < 1e-9);
});
