package report

import (
	"fmt"
	"io"
)

// StoreChangeSchema names the document 'sectax rm', 'import' and 'push'
// write with --format json.
const StoreChangeSchema = "sectax.store-change/v1"

// StoreChange is what rm, import or push did to a store: every list is
// present (empty, never null), so a script reads the same keys whatever
// happened.
type StoreChange struct {
	Schema string `json:"schema"`
	// Command is rm, import or push.
	Command string `json:"command"`
	// Store is the database changed (store.Ref.String: no password).
	Store string `json:"store"`
	// Removed are the runs rm deleted.
	Removed []string `json:"removed"`
	// Imported are the runs import stored anew; Replaced the runs stored
	// cut short that import replaced with the finished run of a file.
	Imported []string `json:"imported"`
	Replaced []string `json:"replaced"`
	// Pushed are the runs push moved from the spool into the store.
	Pushed []string `json:"pushed"`
	// Skipped are the runs not written, each with why.
	Skipped []Skipped `json:"skipped"`
	// Notes say why nothing was done (no spool, an empty one).
	Notes []string `json:"notes"`
}

// Skipped is a run a command left as it was, and why.
type Skipped struct {
	ID  string `json:"id"`
	Why string `json:"why"`
}

// NewStoreChange is an empty change of command to the store named db.
func NewStoreChange(command, db string) *StoreChange {
	return &StoreChange{Schema: StoreChangeSchema, Command: command, Store: db, Removed: []string{}, Imported: []string{},
		Replaced: []string{}, Pushed: []string{}, Skipped: []Skipped{}, Notes: []string{}}
}

// StoreChangeText is the one line each command says on success.
func StoreChangeText(w io.Writer, c *StoreChange) error {
	return plainText(w, func(w io.Writer) error {
		for _, n := range c.Notes {
			fmt.Fprintln(w, n)
		}
		switch c.Command {
		case "rm":
			for _, id := range c.Removed {
				fmt.Fprintf(w, "removed run %s\n", Clip(id, 80))
			}
		case "import":
			fmt.Fprintf(w, "imported %d run(s), skipped %d\n", len(c.Imported)+len(c.Replaced), len(c.Skipped))
		case "push":
			if len(c.Notes) == 0 {
				fmt.Fprintf(w, "pushed %d run(s) to %s\n", len(c.Pushed), c.Store)
			}
		}
		return nil
	})
}

// StoreChangeFormats are the renderings of rm, import and push.
var StoreChangeFormats = textOrJSON("what changed", "a sectax.store-change/v1 document", plain(StoreChangeText))
