package semantic

import "testing"

// typescript-language-server publishes a file's diagnostics only when they
// change. With diagnosticsQuiet, an edit that leaves a clean file clean is
// judged on its silence instead of waiting out pushWait for a publication
// that never comes; an edit that adds an error is still seen and rejected.
func TestTypeScriptTransactionsOnCleanFile(t *testing.T) {
	e, _ := tsEngine(t)
	clean := map[string]any{"file": "src/square.ts", "dry_run": true, "edits": []any{
		map[string]any{"old_text": `return "square";`, "new_text": `return "a square";`}}}
	tr, out, err := txnInvoke(t, e, "edit_file", clean)
	if err != nil {
		t.Fatalf("an edit that keeps the file clean: %v", err)
	}
	if len(tr.Delta.New) != 0 {
		t.Errorf("new diagnostics for a clean edit: %s", dump(out))
	}

	broken := map[string]any{"file": "src/square.ts", "dry_run": true, "edits": []any{
		map[string]any{"old_text": `return "square";`, "new_text": `return 42;`}}}
	tr, out, err = txnInvoke(t, e, "edit_file", broken)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Rejected == "" || !hasDiag(tr.Delta.New, "src/square.ts", "error", "not assignable to type 'string'") {
		t.Errorf("a dry run that adds a type error: %s", dump(out))
	}
}
