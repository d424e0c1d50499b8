// The CRD Studio extension: starts `crd-studio lsp` for YAML and JSON files and hands it the
// `crd-studio.*` settings (the server reads them as `workspace/configuration`, section
// `crd-studio`). Everything else is the server's.
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const config = vscode.workspace.getConfiguration('crd-studio');
  const command = config.get<string>('path') || 'crd-studio';
  const serverOptions: ServerOptions = { command, args: ['lsp'] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: 'file', language: 'yaml' },
      { scheme: 'file', language: 'json' },
    ],
    synchronize: { configurationSection: 'crd-studio' },
  };
  client = new LanguageClient('crd-studio', 'CRD Studio', serverOptions, clientOptions);
  context.subscriptions.push(client);
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
}
