package difftest

// knownDifference is a difference between langhost and the bare server
// that is by design, documented here with its reason. Everything else a
// run finds is a bug: in langhost, or in this harness.
type knownDifference struct {
	lang, tool string // "" matches every language
	why        string
	match      func(d Difference) bool
}

// knownDifferences is deliberately short: an entry needs a reason a user
// of langhost would accept.
var knownDifferences = []knownDifference{}

// known returns why d is a known difference, or "".
func known(lang string, d Difference) string {
	for _, k := range knownDifferences {
		if (k.lang == "" || k.lang == lang) && k.tool == d.Tool && k.match(d) {
			return k.why
		}
	}
	return ""
}
