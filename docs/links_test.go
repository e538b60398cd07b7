// Package docs holds langhost's documentation pages; its tests keep the
// relative links of README.md and docs/*.md pointing at files and
// headings that exist.
package docs

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	linkRE    = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	schemeRE  = regexp.MustCompile(`^[a-z]+:`)
	headingRE = regexp.MustCompile(`^#{1,6} (.*)`)
	slugDrop  = regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
)

// TestRelativeLinksResolve checks every relative link outside code blocks
// in README.md and docs/*.md: the file exists and, for a #fragment into a
// Markdown file, a heading there has that GitHub anchor.
func TestRelativeLinksResolve(t *testing.T) {
	pages, err := filepath.Glob("*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append([]string{filepath.Join("..", "README.md")}, pages...)
	anchors := map[string]map[string]bool{}
	for _, page := range pages {
		for _, l := range proseLines(t, page) {
			for _, m := range linkRE.FindAllStringSubmatch(l.text, -1) {
				target := m[1]
				if schemeRE.MatchString(target) {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				path := page
				if file != "" {
					path = filepath.Join(filepath.Dir(page), file)
				}
				if _, err := os.Stat(path); err != nil {
					t.Errorf("%s:%d: link %s: %v", page, l.n, target, err)
					continue
				}
				if frag == "" || filepath.Ext(path) != ".md" {
					continue
				}
				if anchors[path] == nil {
					anchors[path] = headingAnchors(t, path)
				}
				if !anchors[path][frag] {
					t.Errorf("%s:%d: link %s: %s has no heading with anchor #%s", page, l.n, target, path, frag)
				}
			}
		}
	}
}

type line struct {
	n    int
	text string
}

// proseLines returns the lines of a Markdown file outside fenced code.
func proseLines(t *testing.T, path string) []line {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []line
	fenced := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line{n, sc.Text()})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// headingAnchors lists the anchors GitHub gives the headings of a page:
// lower case, punctuation dropped, spaces as "-", "-1" and on for repeats.
func headingAnchors(t *testing.T, path string) map[string]bool {
	out := map[string]bool{}
	seen := map[string]int{}
	for _, l := range proseLines(t, path) {
		m := headingRE.FindStringSubmatch(l.text)
		if m == nil {
			continue
		}
		slug := strings.ReplaceAll(slugDrop.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), ""), " ", "-")
		if n, dup := seen[slug]; dup {
			seen[slug] = n + 1
			slug += "-" + strconv.Itoa(n+1)
		} else {
			seen[slug] = 0
		}
		out[slug] = true
	}
	return out
}
