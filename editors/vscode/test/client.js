// Speaks LSP to the language server the way the extension's client does: the server started from
// extension.js's serverOptions (the setting's default from package.json unless a command is
// given), JSON-RPC over its stdin and stdout through vscode-languageserver-protocol, the library
// under vscode-languageclient. It runs the session a JSON plan on stdin describes and prints what
// the server answered as JSON; the caller judges the answers.
//
// Usage: node test/client.js [COMMAND ARG...] < plan.json
// plan: {"rootUri", "shutdown": false to say exit without it,
//        "steps": [{"open": {uri, text}} | {"change": {uri, text, version}} | {"diagnostics": uri}
//                  | {"hover" or "definition": {uri, line, character}} | {"symbols": uri} | {"format": uri}]}
// prints: {"spawned": [command, ...args], "initialize": result, "results": [...],
//          "serverRequests": [method, ...], "exit": {code, signal}, "stderr": text}
"use strict";

const cp = require("child_process");
const fs = require("fs");
const path = require("path");
const rpc = require("vscode-languageserver-protocol/node");
const { serverOptions } = require("../extension.js");

const EXTENSION = path.resolve(__dirname, "..");
// a server that hangs must not hang the test; nothing is measured
const GUARD_MS = 60000;

function defaultCommand() {
  const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION, "package.json"), "utf8"));
  return manifest.contributes.configuration.properties["rulecheck.command"].default;
}

// What vscode-languageclient 9 does with an Executable (lib/node/main.js): spawn command with
// args, and "--stdio" appended when the options name the stdio transport (TransportKind.stdio, 0).
function spawnServer(server) {
  const args = server.args ? server.args.slice() : [];
  if (server.transport === 0) {
    args.push("--stdio");
  }
  const proc = cp.spawn(server.command, args, { ...(server.options || {}), stdio: ["pipe", "pipe", "pipe"] });
  return { proc, spawned: [server.command, ...args] };
}

// The parts of vscode-languageclient 9's client capabilities that the server's features answer to.
const CAPABILITIES = {
  general: { positionEncodings: ["utf-16"] },
  textDocument: {
    synchronization: { dynamicRegistration: true, didSave: true, willSave: true, willSaveWaitUntil: true },
    publishDiagnostics: { relatedInformation: true, versionSupport: false, codeDescriptionSupport: true, dataSupport: true },
    hover: { dynamicRegistration: true, contentFormat: ["markdown", "plaintext"] },
    definition: { dynamicRegistration: true, linkSupport: true },
    documentSymbol: { dynamicRegistration: true, hierarchicalDocumentSymbolSupport: true, labelSupport: true },
    formatting: { dynamicRegistration: true },
  },
  workspace: { configuration: true, workspaceFolders: true },
  window: { workDoneProgress: true },
};

async function main(argv) {
  const plan = JSON.parse(fs.readFileSync(0, "utf8"));
  const server = serverOptions(argv.length ? argv : defaultCommand());
  if (server === undefined) {
    throw new Error("no server command");
  }
  const { proc, spawned } = spawnServer(server);
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  proc.stdin.on("error", () => {}); // a server gone: the session fails and says so below
  const exited = new Promise((resolve) => proc.on("exit", (code, signal) => resolve({ code, signal })));
  const failedToStart = new Promise((_, reject) => proc.on("error", reject));

  const connection = rpc.createProtocolConnection(new rpc.StreamMessageReader(proc.stdout), new rpc.StreamMessageWriter(proc.stdin));
  const diagnostics = new Map(); // uri -> the notifications not yet taken, oldest first
  const waiting = new Map(); // uri -> a resolve waiting for the next one
  connection.onNotification(rpc.PublishDiagnosticsNotification.type, (params) => {
    const wake = waiting.get(params.uri);
    if (wake) {
      waiting.delete(params.uri);
      wake(params);
    } else {
      diagnostics.set(params.uri, [...(diagnostics.get(params.uri) || []), params]);
    }
  });
  // VS Code answers the server's requests (registerCapability, configuration, progress); so do we
  const serverRequests = [];
  connection.onRequest((method) => {
    serverRequests.push(method);
    return null;
  });
  connection.listen();

  function nextDiagnostics(uri) {
    const queued = diagnostics.get(uri) || [];
    if (queued.length) {
      return Promise.resolve(queued.shift());
    }
    return new Promise((resolve) => waiting.set(uri, resolve));
  }

  let exitSent = false;
  const session = (async () => {
    const initialize = await connection.sendRequest(rpc.InitializeRequest.type, {
      processId: process.pid,
      clientInfo: { name: "rulecheck extension test", version: "1" },
      rootUri: plan.rootUri || null,
      capabilities: CAPABILITIES,
      workspaceFolders: null,
    });
    await connection.sendNotification(rpc.InitializedNotification.type, {});
    const results = [];
    for (const step of plan.steps) {
      const [kind, arg] = Object.entries(step)[0];
      const doc = { uri: typeof arg === "string" ? arg : arg.uri };
      const at = (a) => ({ textDocument: doc, position: { line: a.line, character: a.character } });
      if (kind === "open") {
        await connection.sendNotification(rpc.DidOpenTextDocumentNotification.type, {
          textDocument: { uri: arg.uri, languageId: "rulecheck-rules", version: 1, text: arg.text },
        });
        results.push(null);
      } else if (kind === "change") {
        await connection.sendNotification(rpc.DidChangeTextDocumentNotification.type, {
          textDocument: { uri: arg.uri, version: arg.version },
          contentChanges: [{ text: arg.text }],
        });
        results.push(null);
      } else if (kind === "diagnostics") {
        results.push(await nextDiagnostics(arg));
      } else if (kind === "hover") {
        results.push(await connection.sendRequest(rpc.HoverRequest.type, at(arg)));
      } else if (kind === "definition") {
        results.push(await connection.sendRequest(rpc.DefinitionRequest.type, at(arg)));
      } else if (kind === "symbols") {
        results.push(await connection.sendRequest(rpc.DocumentSymbolRequest.type, { textDocument: doc }));
      } else if (kind === "format") {
        results.push(await connection.sendRequest(rpc.DocumentFormattingRequest.type, {
          textDocument: doc, options: { tabSize: 2, insertSpaces: true },
        }));
      } else {
        throw new Error(`unknown step ${kind}`);
      }
    }
    if (plan.shutdown !== false) {
      await connection.sendRequest(rpc.ShutdownRequest.type);
    }
    exitSent = true;
    await connection.sendNotification(rpc.ExitNotification.type);
    const exit = await exited;
    return { spawned, initialize, results, serverRequests, exit };
  })();

  let timer;
  const guard = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${GUARD_MS} ms`)), GUARD_MS);
  });
  // a server that exits before it is told to ends the session: say how, with its stderr
  const died = exited.then((exit) => {
    if (!exitSent) {
      throw new Error(`the server exited during the session: ${JSON.stringify(exit)}`);
    }
    return new Promise(() => {});
  });
  // handled here so that whichever loses the race below is not an unhandled rejection
  died.catch(() => {});
  failedToStart.catch(() => {});
  try {
    const out = await Promise.race([session, failedToStart, guard, died]);
    out.stderr = stderr;
    process.stdout.write(JSON.stringify(out));
  } catch (err) {
    proc.kill();
    throw new Error(`${err.message}\nspawned: ${JSON.stringify(spawned)}\nserver stderr:\n${stderr}`);
  } finally {
    clearTimeout(timer);
    connection.dispose();
  }
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
