package manifest

import (
	"errors"
	"fmt"
)

// MaxProblems is how many errors (and, apart, how many warnings) loading reports before it
// only counts the rest: "… and N more problems". A file of a million bad documents or
// duplicate keys then gives a short message, in memory proportional to the file.
const MaxProblems = 20

// problems collects errors, keeping the first MaxProblems and counting the others.
type problems struct {
	errs []error
	more int
}

func (p *problems) add(err error) {
	switch {
	case err == nil:
	case len(p.errs) < MaxProblems:
		p.errs = append(p.errs, err)
	default:
		p.more++
	}
}

// err joins the errors kept, one a line, and says how many more there were.
func (p *problems) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	if p.more > 0 {
		return errors.Join(append(p.errs[:len(p.errs):len(p.errs)], fmt.Errorf("… and %d more problems", p.more))...)
	}
	return errors.Join(p.errs...)
}

// warnings collects warnings the same way.
type warnings struct {
	list []string
	more int
}

func (w *warnings) add(msg string) {
	if len(w.list) < MaxProblems {
		w.list = append(w.list, msg)
		return
	}
	w.more++
}

// merge adds the warnings of o after those of w.
func (w *warnings) merge(o *warnings) {
	for _, m := range o.list {
		w.add(m)
	}
	w.more += o.more
}

// result returns the warnings kept and a last line counting the others.
func (w *warnings) result() []string {
	if w.more > 0 {
		return append(w.list, fmt.Sprintf("… and %d more warnings", w.more))
	}
	return w.list
}
