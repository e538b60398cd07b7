package mcpserver

import (
	"context"
	"errors"
	"log/slog"

	"github.com/hashicorp/go-hclog"
)

// slogLogger adapts the host's hclog logger for the SDK, which logs with
// log/slog, so that both end up in one stream at one level.
func slogLogger(l hclog.Logger) *slog.Logger { return slog.New(hclogHandler{l: l}) }

type hclogHandler struct {
	l      hclog.Logger
	attrs  []any
	prefix string // group path with a trailing dot
}

func hclogLevel(l slog.Level) hclog.Level {
	switch {
	case l < slog.LevelInfo:
		return hclog.Debug
	case l < slog.LevelWarn:
		return hclog.Info
	case l < slog.LevelError:
		return hclog.Warn
	default:
		return hclog.Error
	}
}

func (h hclogHandler) Enabled(_ context.Context, l slog.Level) bool {
	level := h.l.GetLevel()
	return level != hclog.Off && hclogLevel(l) >= level
}

func (h hclogHandler) Handle(_ context.Context, r slog.Record) error {
	args := append([]any(nil), h.attrs...)
	level := hclogLevel(r.Level)
	r.Attrs(func(a slog.Attr) bool {
		args = appendAttr(args, h.prefix, a)
		// The SDK reports the end of a session by cancellation (SIGINT,
		// the client going away) as an error; it is a normal shutdown,
		// and clients log a server's stderr as errors.
		if err, ok := a.Value.Resolve().Any().(error); ok && errors.Is(err, context.Canceled) && level > hclog.Debug {
			level = hclog.Debug
		}
		return true
	})
	h.l.Log(level, r.Message, args...)
	return nil
}

func (h hclogHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	next := h
	next.attrs = append([]any(nil), h.attrs...)
	for _, a := range attrs {
		next.attrs = appendAttr(next.attrs, h.prefix, a)
	}
	return next
}

func (h hclogHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	next := h
	next.prefix = h.prefix + name + "."
	return next
}

// appendAttr flattens a (possibly grouped) attribute into key/value pairs.
func appendAttr(args []any, prefix string, a slog.Attr) []any {
	v := a.Value.Resolve()
	if v.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range v.Group() {
			args = appendAttr(args, p, g)
		}
		return args
	}
	if a.Key == "" {
		return args
	}
	return append(args, prefix+a.Key, v.Any())
}
