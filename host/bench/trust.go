package bench

import (
	"fmt"
	"strings"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// TrustFunc decides whether the file a scenario or run config came from
// may have the commands it names run: trusted, or why not.
type TrustFunc func(file string) (trusted bool, reason string, err error)

// CheckTrust refuses, before anything runs, a scenario with a command
// check or a run config file with an external runner's command when
// trusted refuses its file: those are commands a repository's authors
// wrote. Scenarios whose checks are all registered tools need no trust,
// and nor do run configs given by flags (configFile ""). The error is
// precondition_failed naming the file, the field and `langhost trust`.
func CheckTrust(scenarios []*Scenario, configFile string, configs []RunConfig, trusted TrustFunc) error {
	check := func(file, field string, argv []string) error {
		ok, reason, err := trusted(file)
		if err != nil {
			return failure.Wrap(failure.Precondition, err, "%s: deciding whether %s may run", file, field)
		}
		if ok {
			return nil
		}
		msg := fmt.Sprintf("%s: %s runs %q, and the file is not trusted: %s", file, field, strings.Join(argv, " "), reason)
		// The reason often says how to trust already: say it once.
		if !strings.Contains(reason, "langhost trust") {
			msg += "; review it and run `langhost trust DIR` on its workspace"
		}
		msg += ", or pass --trust-workspace"
		return &failure.Error{Code: failure.Precondition, Field: field, Message: msg}
	}
	for _, s := range scenarios {
		for i, c := range s.Checks {
			if len(c.Command) == 0 {
				continue
			}
			if err := check(s.File, fmt.Sprintf("checks[%d].command", i), c.Command); err != nil {
				return err
			}
			break // one decision per file
		}
	}
	if configFile == "" {
		return nil
	}
	for i, c := range configs {
		if len(c.Command) > 0 {
			return check(configFile, fmt.Sprintf("configs[%d].command", i), c.Command)
		}
	}
	return nil
}
