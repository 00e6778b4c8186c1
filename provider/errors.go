package provider

// WalkErrors calls visit on err and, while visit returns true, on the errors
// it wraps, depth first and in order: the parts of an error whose Unwrap
// returns []error (errors.Join, fmt.Errorf with several %w), the cause of
// one whose Unwrap returns an error. A nil err is not visited. It is the one
// walk of error trees: [Rejected], [FailedZones] and [ErrorParts] use it.
func WalkErrors(err error, visit func(error) bool) {
	if err == nil || !visit(err) {
		return
	}
	switch e := err.(type) {
	case interface{ Unwrap() []error }:
		for _, inner := range e.Unwrap() {
			WalkErrors(inner, visit)
		}
	case interface{ Unwrap() error }:
		WalkErrors(e.Unwrap(), visit)
	}
}

// ErrorParts splits a joined error into its parts: an error made by
// errors.Join, by fmt.Errorf with several %w verbs, or by anything else whose
// Unwrap method returns []error, is replaced by its parts, recursively;
// every other error is a part of its own, kept whole (with its message and
// its wrapped cause). Use it on the errors that gather several independent
// failures: a Reconciler's cycle error, conformance violations, per-zone
// apply errors, a registry's rejected records. A nil err gives nil; the
// order is that of the joined errors.
func ErrorParts(err error) []error {
	var out []error
	WalkErrors(err, func(e error) bool {
		if j, ok := e.(interface{ Unwrap() []error }); ok && len(j.Unwrap()) > 0 {
			return true
		}
		out = append(out, e)
		return false
	})
	return out
}
