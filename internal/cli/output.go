package cli

import (
	"context"
	"errors"

	"github.com/sectax/sectax/internal/userfile"
)

// createOutput is userfile.Create, remembering the file so that mainWith
// can remove its temporary file if the command abandons it (Ctrl-C).
func (g *Globals) createOutput(ctx context.Context, name string) (*userfile.Output, error) {
	o, err := userfile.Create(ctx, name) // not under the lock: a FIFO's open waits
	if err != nil {
		return nil, err
	}
	return g.remember(o)
}

// remember keeps o so that finishAbandoned removes its temporary file.
func (g *Globals) remember(o *userfile.Output) (*userfile.Output, error) {
	g.openedMu.Lock()
	defer g.openedMu.Unlock()
	if g.abandoned {
		o.Finish(errors.New("abandoned"))
		return nil, context.Canceled
	}
	g.opened = append(g.opened, o)
	return o, nil
}

// finishAbandoned removes the temporary files of outputs the command did
// not finish, and makes later createOutput calls fail.
func (g *Globals) finishAbandoned() {
	g.openedMu.Lock()
	defer g.openedMu.Unlock()
	g.abandoned = true
	for _, o := range g.opened {
		o.Finish(errors.New("abandoned")) // a no-op when the command finished it
	}
}

// writeInFolder writes data as name, a name sectax chose, inside the folder
// dir the user named (man pages, charts): userfile.CreateIn, so nothing
// planted at that name is followed or opened.
func (g *Globals) writeInFolder(dir, name string, data []byte) error {
	o, err := userfile.CreateIn(dir, name)
	if err != nil {
		return err
	}
	if o, err = g.remember(o); err != nil {
		return err
	}
	_, err = o.Write(data)
	return o.Finish(userfile.WriteError(o, err))
}
