package zonesync

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
