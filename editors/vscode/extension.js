// Starts `rulecheck lsp` (the setting rulecheck.command) for .rules files; the grammar in
// syntaxes/ highlights them whether or not the server runs.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("rulecheck").get("command", ["rulecheck", "lsp"]);
  if (!Array.isArray(command) || command.length === 0) {
    return;
  }
  const server = { command: command[0], args: command.slice(1), transport: TransportKind.stdio };
  client = new LanguageClient("rulecheck", "rulecheck", server, {
    documentSelector: [{ language: "rulecheck-rules" }],
  });
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
