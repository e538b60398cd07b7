package txnlog

import (
	"fmt"
	"strings"

	"github.com/langhost/langhost/plugins/pluginapi/failure"
)

// An id is a time stamp and a random part ("20261127T232937792114-911c66c0").
// As git does with commits, an id may be abbreviated: to a unique prefix
// of the id, or of its random part, which is what lists show.

// minAbbrev is the shortest abbreviation accepted, as git's.
const minAbbrev = 4

// ShortID is the random part of id, which lists show; Resolve accepts it.
func ShortID(id string) string {
	if _, rnd, ok := strings.Cut(id, "-"); ok && rnd != "" {
		return rnd
	}
	return id
}

// resolve returns the id of recs that id names exactly or abbreviates.
func resolve(recs []*Record, id string) (string, error) {
	var found []string
	for _, r := range recs {
		if r.ID == id {
			return id, nil
		}
		if len(id) >= minAbbrev && (strings.HasPrefix(r.ID, id) || strings.HasPrefix(ShortID(r.ID), id)) {
			found = append(found, r.ID)
		}
	}
	switch len(found) {
	case 0:
		return "", &failure.Error{Code: failure.NotFound, Field: "id", Message: fmt.Sprintf("no transaction %s in this workspace's records", id)}
	case 1:
		return found[0], nil
	}
	return "", &failure.Error{Code: failure.Ambiguous, Field: "id",
		Message: fmt.Sprintf("%s abbreviates %d transactions: %s", id, len(found), strings.Join(found, ", ")),
		Details: map[string]any{"candidates": found}}
}
