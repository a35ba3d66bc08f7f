// Bundles the entry points so the extension activates fast and ships no node_modules.
// The language client library lives in its own bundle, loaded only after activation.
import * as esbuild from 'esbuild';

const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', sourcemap: true, logLevel: 'warning' };

await Promise.all([
  esbuild.build({
    ...common,
    entryPoints: ['client/src/extension.ts'],
    outfile: 'dist/client.js',
    external: ['vscode'],
    // Activation time counts evaluating this bundle: the banner and footer stamp it.
    banner: { js: 'var __causalLensLoadStart = performance.now();' },
    footer: { js: 'var __causalLensLoadEnd = performance.now();' },
  }),
  esbuild.build({ ...common, entryPoints: ['client/src/languageClient.ts'], outfile: 'dist/languageClient.js', external: ['vscode'] }),
  esbuild.build({ ...common, entryPoints: ['server/src/server.ts'], outfile: 'dist/server.js' }),
  esbuild.build({ ...common, entryPoints: ['server/src/cli/main.ts'], outfile: 'dist/cli.js' }),
]);
