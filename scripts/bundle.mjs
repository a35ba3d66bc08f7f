// Bundles the entry points so the extension activates fast and ships no node_modules.
// The language client library lives in its own bundle, loaded only after activation.
// The panel (webview/) is a browser bundle with its stylesheet beside it.
import * as esbuild from 'esbuild';
import { copyFile, mkdir } from 'node:fs/promises';

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
  esbuild.build({
    bundle: true,
    platform: 'browser',
    target: 'chrome120',
    format: 'iife',
    minify: true,
    sourcemap: true,
    logLevel: 'warning',
    entryPoints: ['webview/src/main.ts'],
    outfile: 'dist/webview.js',
  }),
  mkdir('dist', { recursive: true }).then(() => copyFile('webview/src/panel.css', 'dist/webview.css')),
]);
