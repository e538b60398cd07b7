// Package languages embeds the shipped language specs so the langhost
// binary works with no files around it.
package languages

import "embed"

// FS holds the shipped *.yaml specs at its root.
//
//go:embed *.yaml
var FS embed.FS
