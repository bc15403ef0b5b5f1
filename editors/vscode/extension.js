// Starts `rulecheck lsp` (the setting rulecheck.command) for .rules files; the grammar in
// syntaxes/ highlights them whether or not the server runs.
"use strict";

const SETTING = "rulecheck";
const LANGUAGE = "rulecheck-rules";
const DEFAULT_COMMAND = ["rulecheck", "lsp"];

let client;

// The server as vscode-languageclient starts it: an Executable with no `transport`. Do not set
// `transport: TransportKind.stdio`: for an Executable the client then appends `--stdio` to the
// arguments, which `rulecheck lsp` rejects; without one it speaks over stdio all the same.
// test/client.js starts the server from this function, so the tests use what VS Code would.
function serverOptions(command) {
  if (!Array.isArray(command) || command.length === 0) {
    return undefined;
  }
  return { command: command[0], args: command.slice(1) };
}

function activate(context) {
  // required here, not above: serverOptions must load in plain node, where there is no `vscode`
  const vscode = require("vscode");
  const { LanguageClient } = require("vscode-languageclient/node");
  const server = serverOptions(vscode.workspace.getConfiguration(SETTING).get("command", DEFAULT_COMMAND));
  if (server === undefined) {
    return undefined;
  }
  client = new LanguageClient("rulecheck", "rulecheck", server, {
    documentSelector: [{ language: LANGUAGE }],
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate, serverOptions, SETTING, LANGUAGE, DEFAULT_COMMAND };
