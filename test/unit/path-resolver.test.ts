import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { PathResolver } from '../../server/src/workspace/pathResolver';
import { scanWorkspace } from '../../server/src/workspace/scan';

function tree(files: string[]): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'causal-lens-paths-'));
  for (const file of files) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), '');
  }
  return root;
}

test('exact paths inside the workspace win; elsewhere the longest path suffix does', async () => {
  const ws = tree(['src/a/util.c', 'src/b/util.c', 'lib/main.c', 'node_modules/x/util.c', '.git/util.c']);
  const { files } = await scanWorkspace([ws], []);
  assert.equal(files.length, 3, 'node_modules and dot folders are not indexed');
  const resolver = new PathResolver([ws], files, []);
  assert.deepEqual(resolver.resolve(path.join(ws, 'src/b/util.c')), { kind: 'exact', file: path.join(ws, 'src/b/util.c') });
  assert.deepEqual(resolver.resolve('/home/ci/build/src/a/util.c'), { kind: 'suffix', file: path.join(ws, 'src/a/util.c') });
  assert.deepEqual(resolver.resolve('b/util.c'), { kind: 'suffix', file: path.join(ws, 'src/b/util.c') });
  assert.deepEqual(resolver.resolve('main.c'), { kind: 'suffix', file: path.join(ws, 'lib/main.c') });
  fs.rmSync(ws, { recursive: true, force: true });
});

test('equal suffix matches prefer the file under the profile’s folder', async () => {
  const ws = tree(['one/prog.c', 'two/prog.c']);
  const resolver = new PathResolver([ws], (await scanWorkspace([ws], [])).files, []);
  assert.deepEqual(resolver.resolve('/elsewhere/prog.c', path.join(ws, 'two')), { kind: 'suffix', file: path.join(ws, 'two/prog.c') });
  assert.deepEqual(resolver.resolve('/elsewhere/prog.c', path.join(ws, 'one')), { kind: 'suffix', file: path.join(ws, 'one/prog.c') });
  fs.rmSync(ws, { recursive: true, force: true });
});

test('files outside the workspace are never opened unless a mapping leads there', async () => {
  const ws = tree(['src/main.c']);
  const outside = tree(['remote/src/kernel.c']);
  const unmapped = new PathResolver([ws], (await scanWorkspace([ws], [])).files, []);
  const kernel = path.join(outside, 'remote/src/kernel.c');
  const refused = unmapped.resolve(kernel);
  assert.equal(refused.kind, 'outside');
  assert.match((refused as { reason: string }).reason, /causalLens\.pathMappings/);
  const mapped = new PathResolver([ws], (await scanWorkspace([ws], [])).files, [
    { from: '/build/machine/src', to: path.join(outside, 'remote/src') },
  ]);
  assert.deepEqual(mapped.resolve('/build/machine/src/kernel.c'), { kind: 'mapped', file: kernel });
  assert.equal(mapped.resolve('/build/machine/src/missing.c').kind, 'outside');
  fs.rmSync(ws, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

test('the workspace scan finds profiles by the configured globs', async () => {
  const ws = tree(['a/profile.coz', 'b/run.coz', 'c/profile.jsonl', 'c/notes.txt']);
  const { matching: profiles } = await scanWorkspace([ws], ['**/profile.coz', '**/profile.jsonl']);
  assert.deepEqual(profiles.map((p) => path.relative(ws, p)).sort(), ['a/profile.coz', 'c/profile.jsonl']);
  fs.rmSync(ws, { recursive: true, force: true });
});

test('a source created inside the workspace after the scan is found, and a miss is not remembered', async () => {
  const ws = tree(['src/main.c']);
  const resolver = new PathResolver([ws], (await scanWorkspace([ws], [])).files, []);
  const later = path.join(ws, 'src/later.c');
  assert.equal(resolver.resolve(later).kind, 'unresolved');
  fs.writeFileSync(later, '');
  assert.deepEqual(resolver.resolve(later), { kind: 'exact', file: later });
  assert.deepEqual(resolver.resolve('/build/src/later.c'), { kind: 'suffix', file: later });
  fs.rmSync(ws, { recursive: true, force: true });
});
