package workspace

import "strings"

// skippedDirs hold dependencies or build output, never a workspace's own
// sources. TypeScript's outDir (dist, build) holds .d.ts files that would
// be taken for sources.
var skippedDirs = []string{"bin", "obj", "node_modules", "vendor", "target", "dist", "build"}

// SkipDir reports whether every scan of a workspace for its projects or
// sources skips a directory named name: hidden directories (.git, .vs,
// .idea, ...), dependencies and build output. Case is ignored, as .NET
// repositories spell them Bin and Obj too. It is not for expanding globs
// a project file wrote, which follow their own tool's rules.
func SkipDir(name string) bool {
	if strings.HasPrefix(name, ".") && name != "." && name != ".." {
		return true
	}
	for _, d := range skippedDirs {
		if strings.EqualFold(name, d) {
			return true
		}
	}
	return false
}
