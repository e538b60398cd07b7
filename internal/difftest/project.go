package difftest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// projectScope is the part of ws the server counts as the project, as
// workspace-relative paths of directories and files: pyright's include
// (pyrightconfig.json, else [tool.pyright] of pyproject.toml) and
// tsconfig.json's include and files. nil means the whole workspace.
//
// Files outside it are not the server's project: pyright's workspace/symbol
// never lists them (the harness would wait for its index forever), and
// tsserver answers for them from an inferred project of their own. A
// pattern's wildcard segments widen it to the directory before them.
func projectScope(ws string, lang Language) ([]string, error) {
	var include []string
	switch lang.ID {
	case "python":
		var conf struct {
			Include []string `json:"include" toml:"include"`
		}
		data, err := os.ReadFile(filepath.Join(ws, "pyrightconfig.json"))
		switch {
		case err == nil:
			if err := json.Unmarshal(stripJSONC(data), &conf); err != nil {
				return nil, fmt.Errorf("pyrightconfig.json: %w", err)
			}
		case errors.Is(err, fs.ErrNotExist):
			var py struct {
				Tool struct {
					Pyright struct {
						Include []string `toml:"include"`
					} `toml:"pyright"`
				} `toml:"tool"`
			}
			data, err := os.ReadFile(filepath.Join(ws, "pyproject.toml"))
			if errors.Is(err, fs.ErrNotExist) {
				return nil, nil
			}
			if err != nil {
				return nil, err
			}
			if err := toml.Unmarshal(data, &py); err != nil {
				return nil, fmt.Errorf("pyproject.toml: %w", err)
			}
			conf.Include = py.Tool.Pyright.Include
		default:
			return nil, err
		}
		include = conf.Include
	case "typescript":
		var conf struct {
			Include []string `json:"include"`
			Files   []string `json:"files"`
		}
		data, err := os.ReadFile(filepath.Join(ws, "tsconfig.json"))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(stripJSONC(data), &conf); err != nil {
			return nil, fmt.Errorf("tsconfig.json: %w", err)
		}
		if conf.Include == nil && conf.Files == nil {
			return nil, nil
		}
		include = append(conf.Include, conf.Files...)
	default:
		return nil, nil
	}
	var scope []string
	for _, p := range include {
		var kept []string
		for _, seg := range strings.Split(filepath.ToSlash(filepath.Clean(p)), "/") {
			if strings.ContainsAny(seg, "*?[") {
				break
			}
			kept = append(kept, seg)
		}
		dir := strings.Join(kept, "/")
		if dir == "" || dir == "." {
			return nil, nil // the whole workspace
		}
		scope = append(scope, dir)
	}
	return scope, nil
}

// inScope reports whether the workspace-relative file is under scope.
func inScope(scope []string, file string) bool {
	if scope == nil {
		return true
	}
	for _, s := range scope {
		if file == s || strings.HasPrefix(file, s+"/") {
			return true
		}
	}
	return false
}

// stripJSONC turns tsconfig's and pyright's JSON with comments and
// trailing commas into JSON.
func stripJSONC(data []byte) []byte {
	out := make([]byte, 0, len(data))
	inStr := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case inStr:
			out = append(out, c)
			if c == '\\' && i+1 < len(data) {
				i++
				out = append(out, data[i])
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
			out = append(out, c)
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			i--
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := strings.Index(string(data[i+2:]), "*/")
			if end < 0 {
				return out
			}
			i += end + 3
		case c == ']' || c == '}':
			// A trailing comma: the last non-space byte kept is ','.
			j := len(out) - 1
			for j >= 0 && isJSONSpace(out[j]) {
				j--
			}
			if j >= 0 && out[j] == ',' {
				out = append(out[:j], out[j+1:]...)
			}
			out = append(out, c)
		default:
			out = append(out, c)
		}
	}
	return out
}

func isJSONSpace(b byte) bool { return b == ' ' || b == '\t' || b == '\r' || b == '\n' }
