package workflow

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/langhost/langhost/internal/workspace"
)

// Plan is what the Planner returns: the steps the Coder takes, each with
// the files it touches and how to tell it is done.
type Plan struct {
	Summary string `json:"summary,omitempty"`
	Steps   []Step `json:"steps"`
}

// Step is one step of a plan.
type Step struct {
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Files       []string `json:"files"`
	// Acceptance lists checks that must pass: tool ids (go.test) or
	// statements the reviewer verifies.
	Acceptance []string `json:"acceptance"`
}

// Verdict is what the Reviewer returns.
type Verdict struct {
	Approved bool     `json:"approved"`
	Reasons  []string `json:"reasons"`
}

// Limits of a plan: a model's plan is hostile input too.
const (
	maxPlanSteps = 20
	maxTextLen   = 2000
	maxFiles     = 50
)

// planFormat tells the Planner what to answer.
const planFormat = `Answer with only a JSON object, no prose around it:
{"summary": "...", "steps": [{"title": "...", "description": "...", "files": ["path/relative/to/workspace.go"], "acceptance": ["go.test passes", "..."]}]}
Every step has a title, the workspace-relative files it changes (may be empty) and at least one acceptance check.`

// verdictFormat tells the Reviewer what to answer.
const verdictFormat = `Answer with only a JSON object, no prose around it:
{"approved": true or false, "reasons": ["..."]}
Reject with the concrete reasons the coder must fix; approve only when the diff does the task and the diagnostics are clean.`

// jsonObject returns the JSON object in a model's answer: a fenced
// ```json block, or the text from the first '{' to the last '}'.
func jsonObject(answer string) (string, error) {
	s := answer
	if i := strings.Index(s, "```"); i >= 0 {
		rest := s[i+3:]
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		if j := strings.Index(rest, "```"); j >= 0 {
			s = rest[:j]
		}
	}
	i, j := strings.IndexByte(s, '{'), strings.LastIndexByte(s, '}')
	if i < 0 || j < i {
		return "", errors.New("the answer has no JSON object")
	}
	return s[i : j+1], nil
}

// decodeStrict decodes obj into v, refusing unknown fields so that a
// misspelt key is reported, not ignored.
func decodeStrict(obj string, v any) error {
	dec := json.NewDecoder(strings.NewReader(obj))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("not the expected JSON: %w", err)
	}
	return nil
}

// parsePlan reads and validates a Planner's answer. The error names the
// field at fault, for the Planner's one retry.
func parsePlan(ws *workspace.Root, answer string) (*Plan, error) {
	obj, err := jsonObject(answer)
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := decodeStrict(obj, &p); err != nil {
		return nil, err
	}
	if len(p.Steps) == 0 {
		return nil, errors.New("steps: the plan has no steps")
	}
	if len(p.Steps) > maxPlanSteps {
		return nil, fmt.Errorf("steps: %d steps, at most %d", len(p.Steps), maxPlanSteps)
	}
	if len(p.Summary) > maxTextLen {
		return nil, fmt.Errorf("summary: longer than %d bytes", maxTextLen)
	}
	for i, s := range p.Steps {
		at := fmt.Sprintf("steps[%d]", i)
		switch {
		case strings.TrimSpace(s.Title) == "":
			return nil, fmt.Errorf("%s.title: is empty", at)
		case len(s.Title) > maxTextLen || len(s.Description) > maxTextLen:
			return nil, fmt.Errorf("%s: title or description longer than %d bytes", at, maxTextLen)
		case len(s.Files) > maxFiles:
			return nil, fmt.Errorf("%s.files: %d files, at most %d", at, len(s.Files), maxFiles)
		case len(s.Acceptance) == 0:
			return nil, fmt.Errorf("%s.acceptance: a step needs at least one acceptance check", at)
		}
		for j, f := range s.Files {
			if strings.TrimSpace(f) == "" {
				return nil, fmt.Errorf("%s.files[%d]: is empty", at, j)
			}
			if _, err := ws.Resolve(fmt.Sprintf("%s.files[%d]", at, j), f); err != nil {
				return nil, err
			}
		}
		for j, a := range s.Acceptance {
			if strings.TrimSpace(a) == "" || len(a) > maxTextLen {
				return nil, fmt.Errorf("%s.acceptance[%d]: empty or longer than %d bytes", at, j, maxTextLen)
			}
		}
	}
	return &p, nil
}

// parseVerdict reads a Reviewer's answer. A rejection needs reasons.
func parseVerdict(answer string) (*Verdict, error) {
	obj, err := jsonObject(answer)
	if err != nil {
		return nil, err
	}
	var v struct {
		Approved *bool    `json:"approved"`
		Reasons  []string `json:"reasons"`
	}
	if err := decodeStrict(obj, &v); err != nil {
		return nil, err
	}
	if v.Approved == nil {
		return nil, errors.New("approved: missing (true or false)")
	}
	if !*v.Approved && len(v.Reasons) == 0 {
		return nil, errors.New("reasons: a rejection must say what to fix")
	}
	if v.Reasons == nil {
		v.Reasons = []string{}
	}
	return &Verdict{Approved: *v.Approved, Reasons: v.Reasons}, nil
}

// stepPrompt is the Coder's instruction for step i of p.
func stepPrompt(p *Plan, i int) string {
	s := p.Steps[i]
	var b strings.Builder
	fmt.Fprintf(&b, "Implement step %d of %d: %s\n", i+1, len(p.Steps), s.Title)
	if s.Description != "" {
		fmt.Fprintf(&b, "%s\n", s.Description)
	}
	if len(s.Files) > 0 {
		fmt.Fprintf(&b, "Files: %s\n", strings.Join(s.Files, ", "))
	}
	fmt.Fprintf(&b, "Acceptance checks: %s\n", strings.Join(s.Acceptance, "; "))
	b.WriteString("Use the tools to make the change and run the checks; answer in plain text when the step is done.")
	return b.String()
}
