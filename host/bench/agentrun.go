package bench

import (
	"context"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/langhost/langhost/host"
	"github.com/langhost/langhost/host/agent"
	"github.com/langhost/langhost/host/agent/model"
	"github.com/langhost/langhost/host/agent/modeltest"
	"github.com/langhost/langhost/host/agent/roles"
	"github.com/langhost/langhost/host/agent/session"
	"github.com/langhost/langhost/host/agent/transcript"
	"github.com/langhost/langhost/host/registry"
	"github.com/langhost/langhost/plugins/pluginapi/failure"
	"github.com/langhost/langhost/prompts"
)

// benchRole is the role langhost's agent acts in: the one that may edit.
const benchRole = "coder"

// runAgent runs langhost's Language Specialist for s.Language on the task
// in ws, with the scenario's constraints, and fills r's metrics. Every
// write the agent makes is confirmed (the workspace is a throwaway copy)
// and goes through the registry's transactions as in any run.
func runAgent(ctx context.Context, opts Options, s *Scenario, c RunConfig, ws string,
	openHost func() (*host.Host, error), tl *timeline, r *Result) error {
	h, err := openHost()
	if err != nil {
		return err
	}
	a, err := agent.Choose(agent.Specialists(h.Specs, h.Registry), agent.Selection{Language: s.Language})
	if err != nil {
		return err
	}
	tools, err := offeredTools(h.Registry, a, s.Constraints.AllowedTools)
	if err != nil {
		return invalid(s.File, "constraints.allowed_tools", "%v", err)
	}
	reg := h.Registry
	if c.Interface == InterfaceMCP {
		srv, mreg, mtools, err := serveOverMCP(ctx, opts.Langhost, ws, tools, tl)
		if err != nil {
			return err
		}
		defer func() {
			_ = srv.Close()
			tl.write(srv.endEvent())
		}()
		reg, tools = mreg, mtools
	}
	if c.Packet != "" {
		if reg, tools, err = withPacket(tools, c.Packet); err != nil {
			return err
		}
	}

	settings := a.Settings.Override(agent.Settings{Model: c.Model, BaseURL: c.BaseURL, MaxSteps: s.Constraints.MaxSteps})
	provider, srv, err := newProvider(s, c, settings, opts.Getenv)
	if err != nil {
		return err
	}
	if srv != nil {
		defer srv.Close()
		r.Model = "scripted"
	} else {
		r.Model = settings.Model
	}

	set, err := roles.Load(roles.Source{Name: "embedded", FS: prompts.RoleFiles(), Trusted: true})
	if err != nil {
		return fmt.Errorf("roles: %w", err)
	}
	id := transcript.NewID()
	w, err := transcript.Create(h.Workspace, id, secrets(opts.Getenv))
	if err != nil {
		return err
	}
	defer w.Close()
	e := &agent.Executor{Provider: provider, Registry: reg, Transcript: w, Logger: opts.Logger,
		Confirm: func(*registry.Tool) bool { return true },
		// The fixture is the scenario's, which the user chose to run
		// (a workspace's scenarios load only when it is trusted).
		WorkspaceCode: true}
	ctx, cancel := e.WithTimeBudget(ctx, time.Duration(s.Constraints.TimeBudget))
	defer cancel()
	role := e.Roles(set)(benchRole)
	e.Transition(role, "bench run")
	system, err := session.SystemPrompt(session.Options{Agent: a, Roles: set, Task: s.Task, Workspace: h.Workspace}, tools, benchRole)
	if err != nil {
		return err
	}
	e.Emit(transcript.Event{Type: transcript.RunStart, Run: id, Agent: a.ID, Task: s.Task, Provider: c.Provider, Model: r.Model})
	out, loopErr := e.Loop(ctx, agent.Task{System: system, Messages: []model.Message{{Role: model.User, Content: s.Task}},
		Tools: tools, MaxSteps: settings.MaxSteps, Model: settings.Model, Temperature: settings.Temperature})
	end := transcript.Event{Type: transcript.RunEnd, StopReason: out.StopReason, Answer: out.Answer}
	if loopErr != nil {
		end.Error = loopErr.Error()
	}
	e.Emit(end)
	if err := w.Close(); err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	r.Measured = true
	r.StopReason, r.Steps, r.ToolCalls, r.Tokens = out.StopReason, e.Step(), e.ToolCalls(), e.Usage()
	events, err := transcript.Read(w.Path())
	if err != nil {
		return fmt.Errorf("transcript: %w", err)
	}
	for _, ev := range events {
		tl.writeAny(ev)
	}
	if srv != nil {
		if why := refusals(srv); why != "" {
			return fmt.Errorf("the scripted model refused the agent's requests: %s", why)
		}
	}
	return loopErr
}

// offeredTools returns the agent's tools whose ids match one of allowed
// (all of them when allowed is empty). A glob that matches none of them
// is an error: a misspelt allowlist would silently leave the agent bare.
func offeredTools(reg *registry.Registry, a *agent.Specialist, allowed []string) ([]*registry.Tool, error) {
	var out []*registry.Tool
	used := make([]bool, len(allowed))
	for _, id := range a.Tools {
		ok := len(allowed) == 0
		for i, g := range allowed {
			if m, _ := path.Match(g, id); m {
				ok, used[i] = true, true
			}
		}
		if !ok {
			continue
		}
		t, err := reg.Tool(id)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("%q matches none of %s's tools", allowed[i], a.ID)
		}
	}
	return out, nil
}

// newProvider returns the run's model: the scenario's script replayed by
// a scripted model server on a loopback port (then also returned, to be
// closed), or a real provider.
func newProvider(s *Scenario, c RunConfig, settings agent.Settings, getenv func(string) string) (model.Provider, *modeltest.Server, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	switch c.Provider {
	case ProviderScripted, ProviderScriptedAnthropic:
		file := s.ScriptFile()
		if file == "" {
			return nil, nil, invalid(s.File, "script", "the %s provider replays the scenario's script, and it has none", c.Provider)
		}
		script, err := modeltest.LoadScript(file)
		if err != nil {
			return nil, nil, failure.Wrap(failure.InvalidInput, err, "scenario %s", s.Name)
		}
		srv, err := modeltest.Start("127.0.0.1:0", script)
		if err != nil {
			return nil, nil, err
		}
		zero := 0
		cfg := model.Config{Provider: "openai-compatible", Model: "scripted", BaseURL: srv.OpenAIURL(), MaxRetries: &zero}
		if c.Provider == ProviderScriptedAnthropic {
			cfg = model.Config{Provider: "anthropic", Model: "scripted", BaseURL: srv.URL(), APIKey: "scripted", MaxRetries: &zero}
		}
		p, err := model.New(cfg, getenv)
		if err != nil {
			srv.Close()
			return nil, nil, err
		}
		return p, srv, nil
	}
	// A run config's provider and base URL come together from the user's
	// flags or the config file they named: the user chose that endpoint
	// for the provider's key. A scenario cannot set either.
	p, err := model.New(model.Config{Provider: c.Provider, Model: settings.Model, BaseURL: settings.BaseURL,
		UserEndpoint: true, Temperature: settings.Temperature}, getenv)
	return p, nil, err
}

// secrets are the values a run's transcript, timeline and result must
// never hold (see redact.New for what else is hidden).
func secrets(getenv func(string) string) []string {
	if getenv == nil {
		return nil
	}
	return []string{getenv("OPENAI_API_KEY"), getenv("ANTHROPIC_API_KEY")}
}

// refusals says why the scripted server refused requests, if it did: the
// agent's conversation left the script.
func refusals(srv *modeltest.Server) string {
	var out []string
	for i, r := range srv.Requests() {
		if r.Error != "" {
			out = append(out, fmt.Sprintf("request %d: %s", i+1, r.Error))
		}
	}
	return strings.Join(out, "; ")
}

// withPacket returns a registry of tools that ask for the feedback packet
// mode: a tool whose input has a "packet" key gets mode unless the model
// chose one. The agent's loop runs tools through the registry it is given,
// so this is where a run config's packet mode takes effect.
func withPacket(tools []*registry.Tool, mode string) (*registry.Registry, []*registry.Tool, error) {
	reg := registry.New()
	out := make([]*registry.Tool, 0, len(tools))
	for _, t := range tools {
		w := &registry.Tool{ID: t.ID, Language: t.Language, Name: t.Name, Description: t.Description, Kind: t.Kind,
			Categories: t.Categories, InputSchema: t.InputSchema, OutputSchema: t.OutputSchema,
			RequiresConfirmation: t.RequiresConfirmation, ReadOnly: t.ReadOnly, Idempotent: t.Idempotent,
			SideEffects: t.SideEffects, FailureCodes: t.FailureCodes, Source: t.Source, Command: t.Command,
			Version: t.Version, Handler: t.Handler}
		if t.InputSchema != nil && t.InputSchema.Properties["packet"] != nil {
			w.Handler = packetHandler{next: t.Handler, mode: mode}
		}
		if err := reg.Add(w); err != nil {
			return nil, nil, err
		}
		out = append(out, w)
	}
	return reg, out, nil
}

type packetHandler struct {
	next registry.Handler
	mode string
}

func (p packetHandler) Call(ctx context.Context, call registry.Call) (*registry.Result, error) {
	if _, set := call.Input["packet"]; !set {
		in := make(map[string]any, len(call.Input)+1)
		for k, v := range call.Input {
			in[k] = v
		}
		in["packet"] = p.mode
		call.Input = in
	}
	return p.next.Call(ctx, call)
}

// ValidateInput keeps the wrapped tool's own checks.
func (p packetHandler) ValidateInput(input map[string]any) error {
	if v, ok := p.next.(registry.InputValidator); ok {
		return v.ValidateInput(input)
	}
	return nil
}
