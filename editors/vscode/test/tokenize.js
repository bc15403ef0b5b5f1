// Tokenizes .rules files with the extension's TextMate grammar the way VS Code does: the grammar
// named by package.json's contributes.grammars, loaded by vscode-textmate, its regexes run by
// vscode-oniguruma's WASM build of Oniguruma, one line at a time with the rule stack carried over.
// Prints JSON: {"scopeName", "files": [{"path", "lines": [[[text, [scope, ...]], ...], ...]}]}.
// Usage: node test/tokenize.js FILE...  (exit 1 with a message when the grammar cannot be used)
"use strict";

const fs = require("fs");
const path = require("path");
const oniguruma = require("vscode-oniguruma");
const vsctm = require("vscode-textmate");

const EXTENSION = path.resolve(__dirname, "..");
const LINE_MS = 500;

async function loadGrammar() {
  const manifest = JSON.parse(fs.readFileSync(path.join(EXTENSION, "package.json"), "utf8"));
  const [contributed] = manifest.contributes.grammars;
  const grammarPath = path.join(EXTENSION, contributed.path);
  const wasm = fs.readFileSync(path.join(path.dirname(require.resolve("vscode-oniguruma")), "onig.wasm"));
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    // VS Code hands the registry the file that package.json names for the scope
    loadGrammar: async (scopeName) =>
      scopeName === contributed.scopeName
        ? vsctm.parseRawGrammar(fs.readFileSync(grammarPath, "utf8"), grammarPath)
        : null,
  });
  const grammar = await registry.loadGrammar(contributed.scopeName);
  if (!grammar) {
    throw new Error(`no grammar for ${contributed.scopeName}`);
  }
  return { grammar, scopeName: contributed.scopeName };
}

function tokenize(grammar, text) {
  const lines = [];
  let stack = vsctm.INITIAL;
  // VS Code's line breaks; a final line break does not start a line to tokenize
  const rows = text.split(/\r\n|\r|\n/);
  if (rows.length > 1 && rows[rows.length - 1] === "") {
    rows.pop();
  }
  for (const row of rows) {
    // VS Code's time limit for a line (ms); past it, VS Code leaves the rest of the line plain
    const result = grammar.tokenizeLine(row, stack, LINE_MS);
    if (result.stoppedEarly) {
      throw new Error(`tokenizing took over ${LINE_MS} ms on: ${row}`);
    }
    // the last token may reach one past the line (the "\n" vscode-textmate adds); cut it there,
    // and drop the empty token that leaves, but the one token of an empty line
    lines.push(
      result.tokens
        .map((t) => [row.slice(t.startIndex, Math.min(t.endIndex, row.length)), t.scopes])
        .filter(([piece]) => piece !== "" || row === ""),
    );
    stack = result.ruleStack;
  }
  return lines;
}

async function main(files) {
  const { grammar, scopeName } = await loadGrammar();
  const out = { scopeName, files: [] };
  for (const file of files) {
    out.files.push({ path: file, lines: tokenize(grammar, fs.readFileSync(file, "utf8")) });
  }
  process.stdout.write(JSON.stringify(out));
}

main(process.argv.slice(2)).catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
