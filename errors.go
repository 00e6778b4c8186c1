package zonesync

import (
	"fmt"
	"strings"
)

// ErrorParts splits a joined error into its parts: an error made by
// errors.Join, by fmt.Errorf with several %w verbs, or by anything else whose
// Unwrap method returns []error, is replaced by its parts, recursively;
// every other error is a part of its own, kept whole (with its message and
// its wrapped cause). Use it on the errors that gather several independent
// failures: conformance violations, per-zone apply errors, a registry's
// rejected records. A nil err gives nil; the order is that of the joined
// errors.
func ErrorParts(err error) []error {
	if err == nil {
		return nil
	}
	var out []error
	var walk func(error)
	walk = func(e error) {
		if e == nil {
			return
		}
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			if parts := j.Unwrap(); len(parts) > 0 {
				for _, p := range parts {
					walk(p)
				}
				return
			}
		}
		out = append(out, e)
	}
	walk(err)
	return out
}

// maxObjectCauses is the number of causes the error of one object keeps;
// the others are only counted.
const maxObjectCauses = 5

// causeList is the flat error of one object that failed in several ways:
// at most maxObjectCauses causes and the number of those left out. Its
// Error is linear in what it shows, however many causes there were.
type causeList struct {
	errs []error
	more int
}

// objectErrors returns the error of one object from its causes: the cause
// itself when there is one, else a flat [causeList] (causes that are
// themselves cause lists are spliced in, never nested).
func objectErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	c := &causeList{}
	for _, e := range errs {
		if inner, ok := e.(*causeList); ok {
			c.more += inner.more
			c.add(inner.errs...)
			continue
		}
		c.add(e)
	}
	return c
}

func (c *causeList) add(errs ...error) {
	for _, e := range errs {
		if e == nil {
			continue
		}
		if len(c.errs) < maxObjectCauses {
			c.errs = append(c.errs, e)
		} else {
			c.more++
		}
	}
}

// Error lists the causes kept, separated by "; ", and counts the others.
func (c *causeList) Error() string {
	var b strings.Builder
	for i, e := range c.errs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(e.Error())
	}
	if c.more > 0 {
		fmt.Fprintf(&b, "; and %d more", c.more)
	}
	return b.String()
}

// Unwrap returns the causes kept, so that errors.Is, errors.As and
// [ErrorParts] see them.
func (c *causeList) Unwrap() []error { return c.errs }
