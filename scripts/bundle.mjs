// Bundles the three entry points so the extension activates fast and ships no node_modules.
import * as esbuild from 'esbuild';

const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: true, logLevel: 'warning' };

await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: ['client/src/extension.ts'],
    outfile: 'dist/client.js',
    external: ['vscode'],
    // Activation time is measured from here: loading the bundle is part of it.
    banner: { js: 'var __causalLensLoadStart = performance.now();' },
  }),
  esbuild.build({ ...common, entryPoints: ['server/src/server.ts'], outfile: 'dist/server.js' }),
  esbuild.build({ ...common, entryPoints: ['server/src/cli/main.ts'], outfile: 'dist/cli.js' }),
]);
