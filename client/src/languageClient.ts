// The only module that loads vscode-languageclient. It is bundled on its own
// (dist/languageClient.js) and required after activation, so activating stays cheap.

import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from 'vscode-languageclient/node';

const SOURCE_LANGUAGES = ['c', 'cpp', 'cuda-cpp', 'objective-c', 'objective-cpp', 'fortran', 'FortranFreeForm', 'fortran-modern', 'rust'];

export function createLanguageClient(serverModule: string): LanguageClient {
  const serverOptions: ServerOptions = {
    run: { module: serverModule, transport: TransportKind.ipc },
    debug: { module: serverModule, transport: TransportKind.ipc, options: { execArgv: ['--nolazy', '--inspect=6019'] } },
  };
  const clientOptions: LanguageClientOptions = {
    documentSelector: SOURCE_LANGUAGES.map((language) => ({ scheme: 'file', language })),
    outputChannelName: 'Causal Lens',
    // Tells the server when causalLens.* settings change; it then pulls what it needs.
    synchronize: { configurationSection: 'causalLens' },
  };
  return new LanguageClient('causalLens', 'Causal Lens', serverOptions, clientOptions);
}
