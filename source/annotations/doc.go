// Package annotations reads the external-dns annotations of an object.
//
// [Config.Parse] takes any object's annotation map and returns the
// [Values] they ask for: host names, targets, TTL, set identifier, the
// controller that owns the object and provider-specific properties. Both
// external-dns.kubernetes.io/ ([Prefix]) and external-dns.alpha.kubernetes.io/
// ([AlphaPrefix]) are read by default, the newer winning when both are set;
// other prefixes split one cluster between several Reconcilers (split
// horizon).
//
// Provider-specific properties are named as external-dns v0.23 names them:
// ⟨prefix⟩aws-weight becomes aws/weight, and the five Cloudflare
// annotations ⟨prefix⟩cloudflare-⟨attr⟩ become cloudflare/⟨attr⟩
// ([CloudflareProxiedProperty] and the others), whatever the prefix.
//
// Parse reads everything it can and reports each value it cannot use as an
// [*Error] naming the object, the key and the value. A source reports such
// an object in a [*source.PartialError] under obj.Key(), so that the
// records of the other objects are still planned.
//
// The package does no I/O, holds no state and is safe for concurrent use.
package annotations
