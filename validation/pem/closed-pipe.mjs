// Imported first by the validation scripts that print: a reader that stops early (`| head`) ends
// them quietly, as it ends the causal-lens command line (server/src/cli/closedPipe.ts).
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
createRequire(import.meta.url)(path.join(root, 'out/server/src/cli/closedPipe.js')).endQuietlyOnClosedPipe(path.basename(process.argv[1]));
