package annotations

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zonesync/zonesync/endpoint"
	"github.com/zonesync/zonesync/source"
)

// Annotation prefixes external-dns reads. [Prefix] is the default of
// external-dns v0.22 and later, [AlphaPrefix] the default of the
// releases before it.
const (
	Prefix      = "external-dns.kubernetes.io/"
	AlphaPrefix = "external-dns.alpha.kubernetes.io/"
)

// DefaultControllerName is the value of the controller annotation that
// marks an object as ours when [Config.ControllerName] is empty.
const DefaultControllerName = "dns-controller"

// Annotation names, without their prefix. docs/compatibility.md describes each value.
const (
	Hostname              = "hostname"
	InternalHostname      = "internal-hostname"
	Target                = "target"
	TTL                   = "ttl"
	SetIdentifier         = "set-identifier"
	Alias                 = "alias"
	Controller            = "controller"
	Access                = "access"
	EndpointsType         = "endpoints-type"
	RecordType            = "record-type"
	IngressHostnameSource = "ingress-hostname-source"
	GatewayHostnameSource = "gateway-hostname-source"
	Ingress               = "ingress"
)

// providerFamilies maps the name prefix of a provider-specific annotation
// family to the prefix of the property it becomes: ⟨prefix⟩aws-weight
// becomes aws/weight.
var providerFamilies = [...]struct{ annotation, property string }{
	{"aws-", "aws/"},
	{"scw-", "scw/"},
	{"webhook-", "webhook/"},
	{"coredns-", "coredns/"},
}

// Canonical names of the Cloudflare provider-specific properties, the names
// external-dns v0.23 and later give them and its Cloudflare provider reads.
// [Config.Parse] gives the annotation ⟨prefix⟩cloudflare-⟨attr⟩ the name
// cloudflare/⟨attr⟩, whatever the prefix; an attribute not listed here is
// dropped. The names do not depend on the annotation prefix. Releases up to
// v0.22 named these properties by their whole annotation key
// (external-dns.alpha.kubernetes.io/cloudflare-proxied); those legacy names
// are renamed by [source.CanonicalProviderSpecificName], which
// [source.PostProcessor] applies for the "cloudflare" provider.
const (
	// CloudflareProxiedProperty ("true" or "false") says whether Cloudflare
	// proxies the record (annotation cloudflare-proxied).
	CloudflareProxiedProperty = "cloudflare/proxied"
	// CloudflareCustomHostnameProperty lists the Cloudflare custom host
	// names of the record, comma separated (annotation
	// cloudflare-custom-hostname).
	CloudflareCustomHostnameProperty = "cloudflare/custom-hostname"
	// CloudflareRegionProperty is the regional services region key of the
	// record (annotation cloudflare-region-key).
	CloudflareRegionProperty = "cloudflare/region-key"
	// CloudflareRecordCommentProperty is the comment Cloudflare stores with
	// the record (annotation cloudflare-record-comment).
	CloudflareRecordCommentProperty = "cloudflare/record-comment"
	// CloudflareTagsProperty lists the Cloudflare tags of the record, comma
	// separated (annotation cloudflare-tags).
	CloudflareTagsProperty = "cloudflare/tags"
)

// maxAnnotationTTL is the largest TTL external-dns accepts from the ttl annotation.
const maxAnnotationTTL = math.MaxInt32

// Error reports one annotation whose value could not be used. It
// names the object, the full annotation key and the value.
type Error struct {
	Object source.ObjectRef
	Key    string
	Value  string
	Err    error
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s: annotation %s=%q: %v", e.Object, e.Key, e.Value, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Name returns the annotation's name without its prefix, e.g. "ttl".
func (e *Error) Name() string { return e.Key[strings.LastIndex(e.Key, "/")+1:] }

// ErrorsOf returns err, an error of [Config.Parse], with only the errors of
// the annotations for which read reports true (it is given their name
// without prefix, e.g. [Hostname]). A source calls it with what it reads
// of an object: a value it never uses must not fail the object, as it
// does not in external-dns; Parse has read every other annotation in spite
// of it. Errors that are not an [*Error] are kept.
func ErrorsOf(err error, read func(name string) bool) error {
	if err == nil {
		return nil
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		errs = joined.Unwrap()
	}
	var kept []error
	for _, e := range errs {
		var ae *Error
		if errors.As(e, &ae) && !read(ae.Name()) {
			continue
		}
		kept = append(kept, e)
	}
	return errors.Join(kept...)
}

// Config says which annotations [Config.Parse] reads.
// The zero value reads both external-dns prefixes and treats objects whose
// controller annotation is absent or "dns-controller" as ours.
//
// Two Reconcilers in one process can split a cluster (split horizon) by
// giving each its own prefix, e.g. "internal.example.com/" and
// "external.example.com/".
type Config struct {
	// Prefixes are the annotation prefixes read, highest precedence first:
	// when an annotation is set under several of them, the value under the
	// first wins. Each prefix ends with "/". Empty means
	// [DefaultPrefixes]: external-dns.kubernetes.io/ first, then
	// external-dns.alpha.kubernetes.io/.
	Prefixes []string
	// ControllerName is the value of the controller annotation that marks
	// an object as ours; an object whose controller annotation holds any
	// other value is skipped ([Values.Skip]). Empty means
	// [DefaultControllerName].
	ControllerName string
}

// DefaultPrefixes returns the prefixes read when
// [Config.Prefixes] is empty: [Prefix] then
// [AlphaPrefix]. The slice is new on every call.
func DefaultPrefixes() []string {
	return []string{Prefix, AlphaPrefix}
}

func (c Config) prefixes() []string {
	if len(c.Prefixes) == 0 {
		return DefaultPrefixes()
	}
	return c.Prefixes
}

// Validate checks the configuration: every prefix must be non-empty, end
// with "/" and appear once.
func (c Config) Validate() error {
	seen := make(map[string]bool, len(c.Prefixes))
	for i, p := range c.Prefixes {
		switch {
		case p == "":
			return fmt.Errorf("annotation prefix %d is empty", i)
		case !strings.HasSuffix(p, "/"):
			return fmt.Errorf("annotation prefix %q does not end with \"/\"", p)
		case seen[p]:
			return fmt.Errorf("annotation prefix %q is listed twice", p)
		}
		seen[p] = true
	}
	return nil
}

// Values holds what the external-dns annotations of one object ask for.
// Fields whose annotation is absent are zero. Lists are in annotation order
// with duplicates removed.
type Values struct {
	// Skip is true when the controller annotation names another controller:
	// the object is not ours and must produce no endpoints. Only Controller
	// is set besides it.
	Skip bool
	// Controller is the value of the controller annotation ("" if absent).
	Controller string
	// Hostnames are the names of the hostname annotation: all spaces
	// removed, split on ",", one trailing dot dropped, empty entries
	// dropped.
	Hostnames []string
	// InternalHostnames are the names of the internal-hostname annotation,
	// in the same format.
	InternalHostnames []string
	// Targets override the targets the source discovers; same format. Nil
	// when the annotation is absent or empty.
	Targets []string
	// TTL is the ttl annotation in seconds: an integer, or a Go duration
	// with fractions of a second truncated. Zero when absent or invalid.
	TTL endpoint.TTL
	// SetIdentifier is the set-identifier annotation, verbatim.
	SetIdentifier string
	// Access is the access annotation ("public" or "private"), verbatim.
	Access string
	// EndpointsType is the endpoints-type annotation ("NodeExternalIP" or
	// "HostIP"), verbatim.
	EndpointsType string
	// IngressHostnameSource and GatewayHostnameSource are the
	// ingress-hostname-source and gateway-hostname-source annotations
	// ("defined-hosts-only" or "annotation-only"), verbatim.
	IngressHostnameSource string
	GatewayHostnameSource string
	// Ingress is the ingress annotation (name of an Ingress whose status
	// supplies the targets), verbatim.
	Ingress string
	// ProviderSpecific holds the properties the annotations ask for, sorted
	// by name: alias=true (only for the exact value "true"), record-type
	// (any value, empty included), aws/⟨attr⟩, scw/⟨attr⟩, webhook/⟨attr⟩,
	// coredns/⟨attr⟩, azure/tags, and the five Cloudflare properties under
	// their canonical names ([CloudflareProxiedProperty] and the others;
	// other cloudflare-⟨attr⟩ annotations are dropped). Nil when there is
	// none.
	ProviderSpecific endpoint.ProviderSpecific
}

// EndpointMeta returns what the annotations ask of every endpoint of the
// object obj: TTL, set identifier, provider-specific properties and obj's
// resource key. Pass it to [EndpointsForHostname].
func (a Values) EndpointMeta(obj source.ObjectRef) source.EndpointMeta {
	return source.EndpointMeta{
		TTL:              a.TTL,
		SetIdentifier:    a.SetIdentifier,
		ProviderSpecific: a.ProviderSpecific,
		Resource:         obj.Key(),
	}
}

// Parse reads the annotations of the object obj from ann (the object's
// annotation map, which Parse does not modify).
//
// It parses everything it can. A value it cannot use — a ttl that is
// neither seconds nor a duration or is outside 1…2147483647, a hostname or
// target that is not a DNS name or address — is left out of the result,
// and the returned error holds one [*Error] per such annotation
// (joined with [errors.Join]; find them with errors.As), each naming obj,
// the key and the value. A source that wants the external-dns behaviour
// (an invalid ttl is ignored) can use the result and log the error; one
// that wants to be strict reports the object in a [source.PartialError] with
// obj.Key():
//
//	ann, err := cfg.Parse(obj, annotations)
//	if err != nil {
//		failed = failed.Add(obj.Key(), err)
//		continue
//	}
//
// An object whose controller annotation names another controller gives
// just Skip and Controller, and no error whatever its other annotations
// hold.
//
// Parse assumes a valid configuration ([Config.Validate]). It
// does no I/O and is safe for concurrent use.
func (c Config) Parse(obj source.ObjectRef, ann map[string]string) (Values, error) {
	p := newAnnotationParser(c.prefixes(), obj, ann)
	var a Values

	if _, v, ok := p.get(Controller); ok {
		a.Controller = v
		controller := c.ControllerName
		if controller == "" {
			controller = DefaultControllerName
		}
		if v != controller {
			// Another controller's object: the rest of its annotations
			// are not ours to judge.
			return Values{Skip: true, Controller: v}, nil
		}
	}
	a.Hostnames = p.names(Hostname)
	a.InternalHostnames = p.names(InternalHostname)
	a.Targets = p.targets(Target)
	if key, v, ok := p.get(TTL); ok {
		ttl, err := parseTTL(v)
		if err != nil {
			p.fail(key, v, err)
		}
		a.TTL = ttl
	}
	_, a.SetIdentifier, _ = p.get(SetIdentifier)
	_, a.Access, _ = p.get(Access)
	_, a.EndpointsType, _ = p.get(EndpointsType)
	_, a.IngressHostnameSource, _ = p.get(IngressHostnameSource)
	_, a.GatewayHostnameSource, _ = p.get(GatewayHostnameSource)
	_, a.Ingress, _ = p.get(Ingress)
	a.ProviderSpecific = p.providerSpecific()
	return a, errors.Join(p.errs...)
}

type annotationParser struct {
	obj source.ObjectRef
	// found maps each annotation name (the key without its prefix) to the
	// annotation under the prefix of highest precedence that has it.
	found map[string]annotationHit
	errs  []error
}

type annotationHit struct {
	key, value string
	rank       int // index of the prefix; lower wins
}

// newAnnotationParser indexes ann by annotation name in one pass over the
// map, keeping for each name the key of highest precedence. The result does
// not depend on map order.
func newAnnotationParser(prefixes []string, obj source.ObjectRef, ann map[string]string) *annotationParser {
	p := &annotationParser{obj: obj}
	for key, value := range ann {
		for rank, prefix := range prefixes {
			name, ok := strings.CutPrefix(key, prefix)
			if !ok || name == "" {
				continue
			}
			if prev, seen := p.found[name]; seen && prev.rank <= rank {
				continue
			}
			if p.found == nil {
				p.found = make(map[string]annotationHit, len(ann))
			}
			p.found[name] = annotationHit{key: key, value: value, rank: rank}
		}
	}
	return p
}

func (p *annotationParser) fail(key, value string, err error) {
	p.errs = append(p.errs, &Error{Object: p.obj, Key: key, Value: value, Err: err})
}

// get returns the value of the annotation name under the prefix of highest
// precedence that has it, and the full key.
func (p *annotationParser) get(name string) (key, value string, ok bool) {
	hit, ok := p.found[name]
	return hit.key, hit.value, ok
}

// list splits a list annotation: spaces removed, split on ",", empty
// entries dropped. Each entry is checked with valid before one trailing dot
// is dropped (so "a.example.com.." is refused, not turned into
// "a.example.com."); duplicates are dropped.
func (p *annotationParser) list(name string, valid func(string) error) []string {
	key, value, ok := p.get(name)
	if !ok {
		return nil
	}
	var out []string
	for _, e := range strings.Split(strings.ReplaceAll(value, " ", ""), ",") {
		if e == "" {
			continue
		}
		if err := valid(e); err != nil {
			p.fail(key, value, err)
			continue
		}
		if e = strings.TrimSuffix(e, "."); !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

func (p *annotationParser) names(name string) []string {
	return p.list(name, endpoint.ValidateDNSName)
}

func (p *annotationParser) targets(name string) []string {
	return p.list(name, func(t string) error {
		if a, err := netip.ParseAddr(strings.TrimSuffix(t, ".")); err == nil {
			if a.Zone() != "" {
				return fmt.Errorf("target %q is an IPv6 address with a zone", t)
			}
			return nil
		}
		if err := endpoint.ValidateDNSName(t); err != nil {
			return fmt.Errorf("target is neither an IP address nor a DNS name: %w", err)
		}
		return nil
	})
}

// providerSpecific collects the provider-specific properties, sorted by
// name. Each property comes from one annotation name, so the precedence
// already applied in found decides between prefixes.
func (p *annotationParser) providerSpecific() endpoint.ProviderSpecific {
	var out endpoint.ProviderSpecific
	add := func(name, value string) {
		out = append(out, endpoint.ProviderSpecificProperty{Name: name, Value: value})
	}
	for name, hit := range p.found {
		switch {
		case name == Alias:
			if hit.value == "true" {
				add(endpoint.ProviderSpecificAlias, "true")
			}
		case name == RecordType:
			add(endpoint.ProviderSpecificRecordType, hit.value)
		case name == "azure-tags":
			add("azure/tags", hit.value)
		case strings.HasPrefix(name, "cloudflare-"):
			// The attribute is the rest of the name; a "/" in it makes it
			// unknown, even if what follows the "/" is known.
			if prop, ok := source.CanonicalProviderSpecificName(name); ok && !strings.Contains(name, "/") {
				add(prop, hit.value)
			}
		default:
			if prop, ok := familyProperty(name); ok {
				add(prop, hit.value)
			}
		}
	}
	slices.SortFunc(out, func(a, b endpoint.ProviderSpecificProperty) int {
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

func familyProperty(name string) (string, bool) {
	for _, f := range providerFamilies {
		if attr, ok := strings.CutPrefix(name, f.annotation); ok && attr != "" {
			return f.property + attr, true
		}
	}
	return "", false
}

// parseTTL parses a ttl annotation value: whole seconds ("300") or a Go
// duration ("5m", "1h30m"; fractions of a second are truncated, so "1.5s"
// is 1). The result must lie in 1…2147483647 seconds. Surrounding white
// space is ignored. On error the TTL is 0 and the error says why.
func parseTTL(s string) (endpoint.TTL, error) {
	s = strings.TrimSpace(s)
	var secs int64
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		secs = n
	} else if d, derr := time.ParseDuration(s); derr == nil {
		secs = int64(d / time.Second)
	} else {
		return 0, fmt.Errorf("invalid TTL %q: neither whole seconds nor a duration", s)
	}
	if secs < 1 || secs > maxAnnotationTTL {
		return 0, fmt.Errorf("TTL %q out of range: want 1 to %d seconds", s, maxAnnotationTTL)
	}
	return endpoint.TTL(secs), nil
}
