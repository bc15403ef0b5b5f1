"""Editor support for .rules files: a Pygments lexer, the formatter (`rulecheck fmt`) and the
language server (`rulecheck lsp`). docs/editor.md says how to use each."""
