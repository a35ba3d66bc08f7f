// Imported first by the validation scripts that print: a reader that stops early (`| head`) ends
// them quietly, as it ends the causal-lens command line (server/src/cli/closedPipe.ts). Being
// first, it also says in one line when the build they all need is missing.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const script = path.basename(process.argv[1]);
const compiled = path.join(root, 'out/server/src/cli/closedPipe.js');
if (!fs.existsSync(compiled)) {
  process.stderr.write(`${script}: ${path.relative(root, compiled)} is missing: build first (npx tsc -p . in ${root})\n`);
  process.exit(2);
}
createRequire(import.meta.url)(compiled).endQuietlyOnClosedPipe(script);
