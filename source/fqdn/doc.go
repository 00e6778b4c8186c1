// Package fqdn derives host names from objects with FQDN templates, the
// --fqdn-template of external-dns.
//
// A [Template] is Go text/template text whose output is a comma-separated
// list of host names; it can call the helper functions external-dns offers
// (trimPrefix, hasKey, fromJson, ...). [NewTemplate] refuses templates
// whose execution is not bounded, so a template mistake cannot stall a
// reconcile loop. [CombineHostnames] merges the names of a template with
// those a source read from annotations, as external-dns's
// --combine-fqdn-annotation does. The same templates serve as target
// templates ([Template.ExecuteTargets], --target-template) and FQDN target
// templates ([Template.ExecutePairs], --fqdn-target-template), and
// [Template.ForSource] binds the isSource function to one source.
//
// Errors name the object ([source.ObjectRef]); a source reports them per
// object in a [*source.PartialError].
package fqdn
