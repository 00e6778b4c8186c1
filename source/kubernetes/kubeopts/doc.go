// Package kubeopts holds [Options], the settings every source of
// Kubernetes objects shares — namespace, annotation filter, label
// selector, FQDN templates, annotation prefixes, resync period — and the
// helpers that apply them as external-dns does.
//
// The sources of package source/kubernetes and of package
// source/gatewayapi embed Options in their configurations;
// kubernetes.Options is an alias of it, so existing code keeps compiling.
// The package imports neither client-go nor the Kubernetes API types, so
// importing it costs what packages source/annotations and source/fqdn
// cost.
//
// A source of one's own built on Options honours them as the others do:
// it binds the templates to its name once with [Options.WithSource], then
// builds an object's names with [Options.Hostnames] (or
// [Options.AnnotatedHostnames] and [Options.CombineHostnames] when it
// adds names of its own) and its template records with
// [Options.FQDNTargetEndpoints] or [Options.TemplateEndpoints].
package kubeopts
