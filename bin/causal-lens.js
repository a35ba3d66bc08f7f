#!/usr/bin/env node
// Entry of `npx causal-lens`: the bundled CLI built by `npm run build`.
const path = require('node:path');
const fs = require('node:fs');
const bundled = path.join(__dirname, '..', 'dist', 'cli.js');
if (!fs.existsSync(bundled)) {
  process.stderr.write('causal-lens: not built yet; run `npm install && npm run build` in ' + path.dirname(__dirname) + '\n');
  process.exit(1);
}
require(bundled)
  .main(process.argv.slice(2))
  .then((code) => {
    process.exitCode = code;
  });
