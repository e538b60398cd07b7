package difftest

import (
	"slices"
	"strings"
)

// knownDifference is a difference between langhost and the bare server
// that is by design, documented here with its reason. Everything else a
// run finds is a bug: in langhost, or in this harness.
type knownDifference struct {
	lang, tool string // "" matches every language, every tool
	why        string
	match      func(d Difference) bool
}

// knownDifferences is deliberately short: an entry needs a reason a user
// of langhost would accept, and a match that holds only when the answers
// are otherwise the same.
var knownDifferences = []knownDifference{
	{
		lang: "csharp", tool: "file_symbols",
		why: "csharp-ls wraps a file's outline in a symbol of kind File and names a namespace by its last segment (Core for Zoo.Core); " +
			"langhost lists declarations only and names a namespace in full (plugins/semantic/dialect.go, declarationsOnly)",
		match: csharpOutline,
	},
	{
		lang: "csharp",
		why: "langhost bounds each request by the server's requestTimeout (1m by default, configurable) and answers timeout, naming it, " +
			"where the bare server is given all the time it takes (csharp-ls, started cold by --no-daemon, took longer for the 1092 callers of a test helper on Newtonsoft.Json)",
		match: func(d Difference) bool {
			return d.Got.Failure == "timeout" && d.Raw.Failure == "" && strings.Contains(d.Message, "requestTimeout")
		},
	},
}

// known returns why d is a known difference, or "".
func known(lang string, d Difference) string {
	for _, k := range knownDifferences {
		if (k.lang == "" || k.lang == lang) && (k.tool == "" || k.tool == d.Tool) && k.match(d) {
			return k.why
		}
	}
	return ""
}

// csharpOutline reports whether langhost's outline is csharp-ls's with
// the File symbol left out and namespaces named in full: the raw keys
// without the file's node and its path prefix equal langhost's keys with
// each namespace named by its last segment.
func csharpOutline(d Difference) bool {
	if d.Raw.Failure != "" || d.Got.Failure != "" {
		return false
	}
	var raw []string
	var files []string
	for _, k := range d.Raw.Keys {
		if path, name, kind := splitOutlineKey(k); path == "" && kind == "file" {
			files = append(files, name+"/")
		}
	}
	for _, k := range d.Raw.Keys {
		if path, _, kind := splitOutlineKey(k); path == "" && kind == "file" {
			continue
		}
		for _, f := range files {
			if rest, ok := strings.CutPrefix(k, f); ok {
				k = rest
				break
			}
		}
		raw = append(raw, k)
	}
	short := map[string]string{}
	for _, k := range d.Got.Keys {
		if _, name, kind := splitOutlineKey(k); kind == "namespace" {
			short[name] = name[strings.LastIndex(name, ".")+1:]
		}
	}
	got := make([]string, 0, len(d.Got.Keys))
	for _, k := range d.Got.Keys {
		path, name, rest := splitOutlineKey(k)
		segs := strings.Split(path, "/")
		if path == "" {
			segs = nil
		}
		for i, s := range segs {
			if n, ok := short[s]; ok {
				segs[i] = n
			}
		}
		if n, ok := short[name]; ok && rest == "namespace" {
			name = n
		}
		key := name + " " + k[strings.LastIndex(k, " ")+1:]
		if len(segs) > 0 {
			key = strings.Join(segs, "/") + "/" + key
		}
		got = append(got, key)
	}
	slices.Sort(raw)
	slices.Sort(got)
	return len(files) > 0 && slices.Equal(raw, got)
}

// splitOutlineKey splits a file_symbols key, "Outer/Inner/name kind@l:c",
// into the path of its containers, its name and its kind.
func splitOutlineKey(k string) (path, name, kind string) {
	sp := strings.LastIndex(k, " ")
	if sp < 0 {
		return "", k, ""
	}
	kind, _, _ = strings.Cut(k[sp+1:], "@")
	head := k[:sp]
	// Containers end at the last '/' before the name; a name's own
	// parameter list may hold none.
	paren := strings.IndexAny(head, "(<")
	search := head
	if paren >= 0 {
		search = head[:paren]
	}
	if i := strings.LastIndex(search, "/"); i >= 0 {
		return head[:i], head[i+1:], kind
	}
	return "", head, kind
}
