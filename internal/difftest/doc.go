// Package difftest is the differential correctness harness: it asks
// langhost (through the CLI via the workspace's daemon, the CLI with
// --no-daemon, and `langhost mcp` through the official MCP SDK client) and
// the bare language server (with langhost's own LSP client,
// plugins/lsp) the same questions, and compares the answers as sets.
//
// The questions come from the workspace's own symbols (Index): interfaces
// with several implementations, widely used functions, overloads, generic
// types and methods, partial and nested types, names that prefix many
// others, and positions in doc comments, strings and attributes; so it runs
// on any Go module, C# solution, Python or TypeScript project. Its test
// runs it on the testdata projects; scripts/difftest on a real repository.
package difftest
